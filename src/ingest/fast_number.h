// Fast paths for the numbers of a put line: the forms clients send almost
// always (plain digits; a decimal like 12.34) parsed in one short loop.
// Each function answers false for anything else, and the caller then runs
// the full parser (ParseJavaLong / ParseValue), which handles every form and
// writes the error text. Whenever a fast path answers true its result is
// bit-identical to the full parser's.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "sundial/common/decimal.h"
#include "sundial/common/parse_int.h"
#include "sundial/ingest/point_rules.h"

namespace sundial::ingest {

// At most this many digits: 10^18 - 1 fits in int64 with room to spare.
constexpr size_t kFastMaxDigits = kSafeDigits;

// s is 1..18 ASCII digits, no sign: *out is its value.
inline bool FastParseDigits(std::string_view s, int64_t* out) {
  uint64_t v;
  if (!ParseShortDigits(s, &v)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

// The value forms [-]ddd (an int64) and [-]ddd.ddd / [-].ddd / [-]ddd.
// (a double) with at most 15 digits in all. A decimal of at most 15 digits
// is an integer m < 2^53 over 10^k with k <= 15, both exact doubles, so the
// one IEEE division m / 10^k is the correctly rounded value, the same double
// strtod and from_chars produce.
inline bool FastParseValue(std::string_view s, ParsedValue* out) {
  size_t i = 0;
  const size_t n = s.size();
  const bool negative = n > 0 && s[0] == '-';
  if (negative) i = 1;
  uint64_t m = 0;
  size_t digits = 0;
  size_t point = n;  // index of '.', or n
  for (; i < n; ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
    if (d <= 9) {
      m = m * 10 + d;
      ++digits;
    } else if (s[i] == '.' && point == n) {
      point = i;
    } else {
      return false;
    }
  }
  if (digits == 0) return false;
  if (point == n) {  // an integer
    if (digits > kFastMaxDigits) return false;
    const auto v = static_cast<int64_t>(m);
    out->value = Value::Int(negative ? -v : v);
    out->fits_float32 = false;
    return true;
  }
  if (digits > 15) return false;
  double d = static_cast<double>(m) / kPow10[n - point - 1];
  if (negative) d = -d;
  out->value = Value::Float(d);
  out->fits_float32 = static_cast<double>(static_cast<float>(d)) == d;
  return true;
}

}  // namespace sundial::ingest
