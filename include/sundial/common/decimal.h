// Short decimals: a double v "is the decimal m x 10^-s" when the one IEEE
// division double(m) / 10^s gives back exactly v's bits. Pages, WAL records
// and rollups store such values as the integer m and the scale s, which is
// lossless because decoding repeats that same division.
//
// Contract: |m| < kMaxDecimalMantissa (1e15, so at most 15 significant
// digits, DBL_DIG: every such decimal survives a round trip through a
// double) and 0 <= s <= kMaxDecimalScale. NaN and infinities are never
// decimals; -0.0 is not one either (m = 0 decodes to +0.0).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "sundial/common/coding.h"

namespace sundial {

constexpr int kMaxDecimalScale = 15;
constexpr double kMaxDecimalMantissa = 1e15;

// 10^0 .. 10^15, all exact in a double.
constexpr double kPow10[kMaxDecimalScale + 1] = {
    1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// The value of mantissa m at scale s (the decoder's side).
// REQUIRES: 0 <= s <= kMaxDecimalScale.
inline double DecimalValue(int64_t m, int s) { return static_cast<double>(m) / kPow10[s]; }

// If v is a short decimal at scale s, stores its mantissa in *m and returns
// true. REQUIRES: 0 <= s <= kMaxDecimalScale.
inline bool DecimalFits(double v, int s, int64_t* m) {
  const double x = v * kPow10[s];
  // Rejects NaN, infinities and long mantissas.
  if (!(x > -kMaxDecimalMantissa && x < kMaxDecimalMantissa)) return false;
  const int64_t r = static_cast<int64_t>(x < 0 ? x - 0.5 : x + 0.5);
  if (DoubleToBits(DecimalValue(r, s)) != DoubleToBits(v)) return false;
  *m = r;
  return true;
}

// The smallest scale s in [from, to] at which v is a short decimal (its
// mantissa then goes to *m), or -1. Stops early once v * 10^s is too large
// for any larger scale to work. REQUIRES: 0 <= from, to <= kMaxDecimalScale.
inline int MinDecimalScale(double v, int from, int to, int64_t* m) {
  for (int s = from; s <= to; ++s) {
    if (DecimalFits(v, s, m)) return s;
    const double x = v * kPow10[s];
    if (!(x > -kMaxDecimalMantissa && x < kMaxDecimalMantissa)) return -1;
  }
  return -1;
}

}  // namespace sundial
