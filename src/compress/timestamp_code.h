// Timestamp codes of page format v1 (see page_format.h): the delta-of-delta
// in page units (ms, or s in seconds pages) as an adaptive Rice code, and
// the run code.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "rice_code.h"
#include "sundial/compress/bit_stream.h"

namespace sundial::compress {

constexpr int kRunCountBits = 16;
constexpr int kRunCodeBits = kRiceLongPrefixBits + kRunCountBits;
// A run pays off once it replaces more "00" points than its own bits.
constexpr uint16_t kMinRunPoints = kRunCodeBits / 2 + 1;

inline uint64_t ZigZag(uint64_t v) {
  return (v << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63);
}
inline uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

// Writes the code for dod (wrapping difference of deltas). adapt: whether
// the code updates the Rice state (all but point 1's).
SUNDIAL_INLINE void WriteDod(BitWriter* w, uint64_t dod, RiceState* st, bool adapt) {
  const uint64_t zz = ZigZag(dod);
  if (zz == 0) {
    w->Write(0, 1);
    return;
  }
  WriteRiceNonZero(w, zz - 1, st->k());
  if (adapt) st->Update(zz - 1);
}

// Writes a run code's prefix; the 16-bit count follows.
SUNDIAL_INLINE void WriteRunPrefix(BitWriter* w) { WriteRiceLong(w, kRiceSpecialA); }

// Result of reading one timestamp code.
struct DodCode {
  bool run;  // a run code: count holds its length
  bool bad;  // an invalid code
  uint32_t count;
  uint64_t dod;
};

// Reads one timestamp code. Overruns show in r->overrun().
SUNDIAL_INLINE DodCode ReadDod(BitReader* r, RiceState* st, bool adapt) {
  const RiceCode c = ReadRice(r, st->k());
  if (c.zero) return {false, false, 0, 0};
  if (c.special == 0) {
    if (adapt) st->Update(c.z1);
    return {false, false, 0, UnZigZag(c.z1 + 1)};
  }
  if (c.special == kRiceSpecialA) {
    return {true, false, static_cast<uint32_t>(r->Read(kRunCountBits)), 0};
  }
  return {false, true, 0, 0};
}

}  // namespace sundial::compress
