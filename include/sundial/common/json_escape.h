// JSON string literals for every reply Sundial writes (query results,
// lookup, suggest, errors, stats, /api/put details).
//
// Contract: the output is always valid JSON (RFC 8259) and valid UTF-8, for
// any input bytes:
//   - '"' and '\\' are backslash-escaped;
//   - every byte below 0x20 is \u00XX with upper-case hex (\n is \u000A), as
//     opentsdb-compat.md asks;
//   - 0x7f and well-formed UTF-8 (no overlong forms, no surrogates, nothing
//     above U+10FFFF) are copied as they are;
//   - every byte that does not start a well-formed UTF-8 sequence becomes
//     \ufffd (U+FFFD, the replacement character), one per byte.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sundial {

// Appends s to *out as a quoted JSON string literal.
void AppendJsonString(std::string_view s, std::string* out);

// The length of the well-formed UTF-8 sequence that starts at s[i] (1..4),
// or 0 if s[i] does not start one. REQUIRES: i < s.size().
size_t Utf8SequenceLength(std::string_view s, size_t i);

}  // namespace sundial
