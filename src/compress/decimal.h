// Decimal pages: the short-decimal test (sundial/common/decimal.h) with the
// page format's limits.
#pragma once

#include <cstdint>

#include "sundial/common/decimal.h"
#include "sundial/compress/page_format.h"

namespace sundial::compress {

static_assert(kMaxDecimalScale == sundial::kMaxDecimalScale,
              "page decimal scales are the common ones");

// Decimal pages code a value natively only when its mantissa delta is this
// small (a 38-bit code at most); bigger jumps are escaped, and a page full
// of them is cheaper as xor.
constexpr uint64_t kMaxDecimalZigZag = uint64_t{1} << 32;

// The smallest scale >= from at which v is a decimal, or -1.
inline int MinDecimalScale(double v, int from) {
  int64_t m;
  return sundial::MinDecimalScale(v, from, kMaxDecimalScale, &m);
}

}  // namespace sundial::compress
