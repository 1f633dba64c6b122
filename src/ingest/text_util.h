// Character helpers of the ingest module: UTF-8 decoding with a Latin-1
// fallback, Java's String.hashCode, and Java's Character.isLetter (by a
// table of the letter ranges of the scripts in common use; the full Unicode
// table is not worth its size here).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sundial::ingest {

// Decodes the character starting at s[i] (REQUIRES: i < s.size()) into *cp
// and returns its length in bytes. A byte that does not start a valid UTF-8
// sequence decodes to itself (a Latin-1 character) with length 1.
size_t DecodeChar(std::string_view s, size_t i, uint32_t* cp);

// Appends cp to *out as UTF-8.
void AppendUtf8(uint32_t cp, std::string* out);

// Java's String.hashCode of the text (decoded as DecodeChar does, hashed
// over UTF-16 code units).
int32_t JavaStringHash(std::string_view s);

// Java's Character.isLetter, for code points outside ASCII; see the file
// comment for its coverage.
bool IsUnicodeLetter(uint32_t cp);

}  // namespace sundial::ingest
