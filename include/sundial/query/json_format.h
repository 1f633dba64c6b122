// JSON text helpers shared by every query endpoint writer.
//
// Why: OpenTSDB (Jackson) prints longs as integers and doubles in Java
// Double.toString form ("1.5", "100.0", "1.0E-4", "9.223372036854776E17").
// Grafana and curl scripts see the same bytes from Sundial. NaN and
// infinities are printed as quoted strings ("NaN"), as Jackson does.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sundial/common/json_escape.h"

namespace sundial::query {

// Appends v in Java Double.toString layout using the shortest digits that
// round-trip: plain decimal with at least one fractional digit when
// 1e-3 <= |v| < 1e7, otherwise "<d>.<digits>E<exp>". Zero is "0.0"/"-0.0".
// NaN/Inf are appended as the quoted strings "NaN", "Infinity", "-Infinity".
void AppendJavaDouble(double v, std::string* out);

// The same digits without the quotes for NaN/Inf (for string-valued fields
// such as /api/query/last "value").
std::string JavaDoubleToString(double v);

// AppendJavaDouble's bytes for the common case, written to out without a
// std::string: a finite v with 1e-3 <= |v| < 1e7 and at most 4 decimals
// (sensor readings, percentages). Returns the end of what it wrote, or
// nullptr (nothing written) for any other v. out needs kShortDoubleMax
// bytes.
inline constexpr size_t kShortDoubleMax = 16;
char* WriteShortJavaDouble(double v, char* out);

// Writes v in decimal to out (the same bytes as std::to_chars) and returns
// the end; out needs kIntMax bytes. Splits v into 8-digit parts first, so
// that the digits come from 32-bit arithmetic, which 32-bit ARM has in
// hardware (64-bit division is a library call there).
inline constexpr size_t kIntMax = 20;
char* WriteInt(int64_t v, char* out);

// Appends a signed decimal integer.
void AppendInt(int64_t v, std::string* out);

}  // namespace sundial::query
