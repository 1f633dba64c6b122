// Decimal scaling for decimal pages: a float64 v is the decimal m x 10^-s
// when double(m) / 10^s, one IEEE division, gives back exactly v's bits.
#pragma once

#include <cstdint>

#include "sundial/common/coding.h"
#include "sundial/compress/page_format.h"

namespace sundial::compress {

// 10^0 .. 10^15, all exact in a double.
constexpr double kPow10[kMaxDecimalScale + 1] = {
    1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
    1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// The decoder's side: the value of mantissa m at scale s.
inline double DecimalValue(int64_t m, int s) {
  return static_cast<double>(m) / kPow10[s];
}

// Short decimals have at most 15 significant digits (DBL_DIG: every such
// decimal survives a round trip through a double). Longer mantissas are
// full-precision doubles, which xor codes better.
constexpr double kMaxMantissa = 1e15;

// If v is a short decimal of scale s, stores its mantissa in *m and returns
// true.
inline bool DecimalFits(double v, int s, int64_t* m) {
  const double x = v * kPow10[s];
  // Rejects NaN, infinities and long mantissas.
  if (!(x > -kMaxMantissa && x < kMaxMantissa)) return false;
  const int64_t r = static_cast<int64_t>(x < 0 ? x - 0.5 : x + 0.5);
  if (DoubleToBits(DecimalValue(r, s)) != DoubleToBits(v)) return false;
  *m = r;
  return true;
}

// Decimal pages code a value natively only when its mantissa delta is this
// small (a 38-bit code at most); bigger jumps are escaped, and a page full
// of them is cheaper as xor.
constexpr uint64_t kMaxDecimalZigZag = uint64_t{1} << 32;

// The smallest scale >= from at which v is a decimal, or -1.
inline int MinDecimalScale(double v, int from) {
  int64_t m;
  for (int s = from; s <= kMaxDecimalScale; ++s) {
    if (DecimalFits(v, s, &m)) return s;
  }
  return -1;
}

}  // namespace sundial::compress
