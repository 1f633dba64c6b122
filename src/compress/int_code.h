// Value codes of int and decimal pages, page format v1 (see page_format.h):
// zigzag deltas of the native int64 (an int, or a decimal mantissa) with a
// unary bucket prefix, plus raw escapes for values of the other type.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "sundial/compress/bit_stream.h"
#include "timestamp_code.h"

namespace sundial::compress {

// Writes the code for the wrapping delta d of the native value.
inline void WriteIntDelta(BitWriter* w, uint64_t d) {
  const uint64_t zz = ZigZag(d);
  if (zz == 0) {
    w->Write(0, 1);
    return;
  }
  const uint64_t z = zz - 1;
  if (z < (uint64_t{1} << 4)) {
    w->Write((z << 2) | 0x1, 2 + 4);
  } else if (z < (uint64_t{1} << 7)) {
    w->Write((z << 3) | 0x3, 3 + 7);
  } else if (z < (uint64_t{1} << 12)) {
    w->Write((z << 4) | 0x7, 4 + 12);
  } else if (z < (uint64_t{1} << 20)) {
    w->Write((z << 5) | 0xf, 5 + 20);
  } else if (z < (uint64_t{1} << 32)) {
    w->Write((z << 6) | 0x1f, 6 + 32);
  } else {
    w->Write(0x3f, 7);
    w->Write64(zz);
  }
}

// Writes an escaped value: raw bits of a float64 or an int64.
inline void WriteIntEscape(BitWriter* w, bool is_int, uint64_t bits) {
  w->Write(is_int ? 0xff : 0x7f, 8);
  w->Write64(bits);
}

// Result of reading one value code of an int or decimal page.
struct IntCode {
  enum Kind : uint8_t { kDelta, kEscapeFloat, kEscapeInt } kind;
  uint64_t v;  // the delta, or the escaped raw bits
};

SUNDIAL_INLINE IntCode ReadIntCode(BitReader* r) {
  const uint64_t w = r->Peek();
  if ((w & 1) == 0) {
    r->Skip(1);
    return {IntCode::kDelta, 0};
  }
  const int ones = __builtin_ctzll(~w | (uint64_t{1} << 8));
  switch (ones) {
    case 1:
      r->Skip(2 + 4);
      return {IntCode::kDelta, UnZigZag(((w >> 2) & 0xf) + 1)};
    case 2:
      r->Skip(3 + 7);
      return {IntCode::kDelta, UnZigZag(((w >> 3) & 0x7f) + 1)};
    case 3:
      r->Skip(4 + 12);
      return {IntCode::kDelta, UnZigZag(((w >> 4) & 0xfff) + 1)};
    case 4:
      r->Skip(5 + 20);
      return {IntCode::kDelta, UnZigZag(((w >> 5) & 0xfffff) + 1)};
    case 5:
      r->Skip(6 + 32);
      return {IntCode::kDelta, UnZigZag(((w >> 6) & 0xffffffffu) + 1)};
    case 6:
      r->Skip(7);
      return {IntCode::kDelta, UnZigZag(r->Read64())};
    case 7:
      r->Skip(8);
      return {IntCode::kEscapeFloat, r->Read64()};
    default:
      r->Skip(8);
      return {IntCode::kEscapeInt, r->Read64()};
  }
}

}  // namespace sundial::compress
