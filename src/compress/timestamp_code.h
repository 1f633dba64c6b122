// Timestamp codes of page format v1 (see page_format.h): a delta-of-delta
// in page units (ms, or s in seconds pages) with a unary bucket prefix, and
// the run code.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "sundial/compress/bit_stream.h"

namespace sundial::compress {

constexpr int kRunPrefixBits = 6;
constexpr uint64_t kRunPrefix = 0x3f;  // "111111"
constexpr int kRunCountBits = 16;
// A run pays off once it replaces more bits than it costs.
constexpr uint16_t kMinRunPoints = (kRunPrefixBits + kRunCountBits) / 2 + 1;

inline uint64_t ZigZag(uint64_t v) {
  return (v << 1) ^ static_cast<uint64_t>(static_cast<int64_t>(v) >> 63);
}
inline uint64_t UnZigZag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

// Writes the code for dod (wrapping difference of deltas).
inline void WriteDod(BitWriter* w, uint64_t dod) {
  const uint64_t zz = ZigZag(dod);
  if (zz == 0) {
    w->Write(0, 1);
    return;
  }
  const uint64_t z = zz - 1;
  if (z < (uint64_t{1} << 8)) {
    w->Write((z << 2) | 0x1, 2 + 8);
  } else if (z < (uint64_t{1} << 14)) {
    w->Write((z << 3) | 0x3, 3 + 14);
  } else if (z < (uint64_t{1} << 20)) {
    w->Write((z << 4) | 0x7, 4 + 20);
  } else if (z < (uint64_t{1} << 32)) {
    w->Write((z << 5) | 0xf, 5 + 32);
  } else {
    w->Write(0x1f, 6);
    w->Write64(zz);
  }
}

// Result of reading one timestamp code.
struct DodCode {
  bool run;       // a run code: count holds its length
  uint32_t count;
  uint64_t dod;
};

// Reads one timestamp code. Overruns show in r->overrun().
SUNDIAL_INLINE DodCode ReadDod(BitReader* r) {
  const uint64_t w = r->Peek();
  if ((w & 1) == 0) {
    r->Skip(1);
    return {false, 0, 0};
  }
  const int ones = __builtin_ctzll(~w | (uint64_t{1} << 6));
  switch (ones) {
    case 1:
      r->Skip(2 + 8);
      return {false, 0, UnZigZag(((w >> 2) & 0xff) + 1)};
    case 2:
      r->Skip(3 + 14);
      return {false, 0, UnZigZag(((w >> 3) & 0x3fff) + 1)};
    case 3:
      r->Skip(4 + 20);
      return {false, 0, UnZigZag(((w >> 4) & 0xfffff) + 1)};
    case 4:
      r->Skip(5 + 32);
      return {false, 0, UnZigZag(((w >> 5) & 0xffffffffu) + 1)};
    case 5:
      r->Skip(6);
      return {false, 0, UnZigZag(r->Read64())};
    default:
      r->Skip(kRunPrefixBits);
      return {true, static_cast<uint32_t>(r->Read(kRunCountBits)), 0};
  }
}

}  // namespace sundial::compress
