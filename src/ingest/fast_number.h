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

#include "sundial/ingest/point_rules.h"

namespace sundial::ingest {

// At most this many digits: 10^18 - 1 fits in int64 with room to spare.
constexpr size_t kFastMaxDigits = 18;

// The 8 bytes at p are ASCII digits: *out is their value. Eight at once
// (SWAR) on little-endian CPUs, one by one elsewhere.
inline bool EightDigits(const char* p, uint64_t* out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  constexpr uint64_t kZeros = 0x3030303030303030ull;
  constexpr uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ull;
  uint64_t w;
  std::memcpy(&w, p, 8);
  // Every byte in 0x30..0x39: its high nibble is 3, also after adding 6.
  if ((w & kHighNibbles) != kZeros ||
      ((w + 0x0606060606060606ull) & kHighNibbles) != kZeros) {
    return false;
  }
  uint64_t d = w - kZeros;  // byte k: digit k (the first one lowest)
  d = (d * 10 + (d >> 8)) & 0x00FF00FF00FF00FFull;      // pairs: 0..99
  d = (d * 100 + (d >> 16)) & 0x0000FFFF0000FFFFull;    // quads: 0..9999
  *out = (d * 10000 + (d >> 32)) & 0xFFFFFFFFull;       // all eight
  return true;
#else
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(p[i]) - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
#endif
}

// s is 1..18 ASCII digits, no sign: *out is its value.
inline bool FastParseDigits(std::string_view s, int64_t* out) {
  if (s.empty() || s.size() > kFastMaxDigits) return false;
  uint64_t v = 0;
  size_t i = 0;
  if (s.size() >= 8) {  // timestamps: 10 or 13 digits
    if (!EightDigits(s.data(), &v)) return false;
    i = 8;
  }
  for (; i < s.size(); ++i) {
    const auto d = static_cast<unsigned>(static_cast<unsigned char>(s[i]) - '0');
    if (d > 9) return false;
    v = v * 10 + d;
  }
  *out = static_cast<int64_t>(v);
  return true;
}

// The value forms [-]ddd (an int64) and [-]ddd.ddd / [-].ddd / [-]ddd.
// (a double) with at most 15 digits in all. A decimal of at most 15 digits
// is an integer m < 2^53 over 10^k with k <= 15, both exact doubles, so the
// one IEEE division m / 10^k is the correctly rounded value, the same double
// strtod and from_chars produce.
inline bool FastParseValue(std::string_view s, ParsedValue* out) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
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
