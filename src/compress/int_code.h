// Value codes of int and decimal pages, page format v1 (see page_format.h):
// zigzag deltas of the native int64 (an int, or a decimal mantissa) as
// adaptive Rice codes, plus raw escapes for values of the other type.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "rice_code.h"
#include "sundial/compress/bit_stream.h"
#include "timestamp_code.h"

namespace sundial::compress {

// Writes the code for the wrapping delta d of the native value. adapt:
// whether the code updates the Rice state (all but the first native value's).
SUNDIAL_INLINE void WriteIntDelta(BitWriter* w, uint64_t d, RiceState* st, bool adapt) {
  const uint64_t zz = ZigZag(d);
  if (zz == 0) {
    w->Write(0, 1);
    return;
  }
  WriteRiceNonZero(w, zz - 1, st->k());
  if (adapt) st->Update(zz - 1);
}

// Writes an escaped value: raw bits of a float64 or an int64.
inline void WriteIntEscape(BitWriter* w, bool is_int, uint64_t bits) {
  WriteRiceLong(w, is_int ? kRiceSpecialB : kRiceSpecialA);
  w->Write64(bits);
}

// Result of reading one value code of an int or decimal page.
struct IntCode {
  enum Kind : uint8_t { kDelta, kEscapeFloat, kEscapeInt, kBad } kind;
  uint64_t v;  // the delta, or the escaped raw bits
};

SUNDIAL_INLINE IntCode ReadIntCode(BitReader* r, RiceState* st, bool adapt) {
  const RiceCode c = ReadRice(r, st->k());
  if (c.zero) return {IntCode::kDelta, 0};
  if (c.special == 0) {
    if (adapt) st->Update(c.z1);
    return {IntCode::kDelta, UnZigZag(c.z1 + 1)};
  }
  if (c.special == kRiceSpecialA) return {IntCode::kEscapeFloat, r->Read64()};
  if (c.special == kRiceSpecialB) return {IntCode::kEscapeInt, r->Read64()};
  return {IntCode::kBad, 0};
}

}  // namespace sundial::compress
