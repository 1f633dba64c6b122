// Adaptive Rice codes, shared by the timestamp and the int/decimal value
// codes of page format v1 (see page_format.h for the bit layout).
//
// A code stands for z >= 0. z = 0 is the single bit "0". Otherwise "1"
// follows, then z - 1 either as a Rice code with parameter k (q = (z-1) >> k
// as q one bits and a zero, then the low k bits), for q < 8, or, after 8
// one bits, as a 7-bit field e and e bits. e in 1..64 is the width of z - 1;
// e = 65 and 66 are special codes whose meaning the caller defines.
//
// k follows the data: each state keeps a = 16 x a running mean of z - 1
// (a += min(z - 1, 2^40) - a / 16 after every nonzero code the caller
// counts), and k = floor(log2(a / 16)) (0 when a < 32), at most 40.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "sundial/compress/bit_stream.h"

namespace sundial::compress {

constexpr int kRiceMaxQ = 8;
constexpr int kRiceMaxK = 40;
constexpr int kRiceSpecialA = 65;
constexpr int kRiceSpecialB = 66;
// Bits of "1", 8 ones and the 7-bit field.
constexpr int kRiceLongPrefixBits = 1 + kRiceMaxQ + 7;

struct RiceState {
  uint64_t a = 0;

  // floor(log2(a / 16)), 0 below 2. Update keeps a <= 2^44 (a - a / 16 +
  // min(z1, 2^40) <= 2^44 when a <= 2^44), so this is at most kRiceMaxK,
  // and it equals floor(log2(a | 16)) - 4.
  int k() const { return 59 - __builtin_clzll(a | 16); }
  void Update(uint64_t z1) {
    const uint64_t c = uint64_t{1} << kRiceMaxK;
    a += (z1 < c ? z1 : c) - (a >> 4);
  }
};

inline int BitWidth(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

// Writes v (n bits, 0..64).
SUNDIAL_INLINE void WriteWide(BitWriter* w, uint64_t v, int n) {
  if (n <= 57) {
    w->Write(v, n);
  } else {
    w->Write(v & 0xffffffffu, 32);
    w->Write(v >> 32, n - 32);
  }
}
SUNDIAL_INLINE uint64_t ReadWide(BitReader* r, int n) {
  if (n <= 57) return r->Read(n);
  const uint64_t lo = r->Read(32);
  return lo | (r->Read(n - 32) << 32);
}

// Writes the long prefix: "1", 8 ones, then e.
SUNDIAL_INLINE void WriteRiceLong(BitWriter* w, int e) {
  w->Write(((uint64_t{1} << (1 + kRiceMaxQ)) - 1) |
               (static_cast<uint64_t>(e) << (1 + kRiceMaxQ)),
           kRiceLongPrefixBits);
}

// Writes the code of z1 + 1 (that is, a nonzero z) with parameter k.
SUNDIAL_INLINE void WriteRiceNonZero(BitWriter* w, uint64_t z1, int k) {
  const uint64_t q = z1 >> k;
  if (q < kRiceMaxQ) {
    const int n = static_cast<int>(q);
    // "1", q ones, "0", then the low k bits.
    w->Write(1 | (((uint64_t{1} << n) - 1) << 1) |
                 ((z1 & LowBits(k)) << (n + 2)),
             n + 2 + k);
    return;
  }
  const int e = BitWidth(z1);
  WriteRiceLong(w, e);
  WriteWide(w, z1, e);
}

// One decoded code.
struct RiceCode {
  int special;  // 0, or kRiceSpecialA/B (the caller reads what follows)
  bool zero;
  uint64_t z1;  // z - 1 when !zero and !special
};

// Reads one code. Returns special -1 for an invalid e. Overruns show in
// r->overrun().
SUNDIAL_INLINE RiceCode ReadRice(BitReader* r, int k) {
  const uint64_t w = r->Peek();
  if ((w & 1) == 0) {
    r->Skip(1);
    return {0, true, 0};
  }
  const int q = __builtin_ctzll(~(w >> 1) | (uint64_t{1} << kRiceMaxQ));
  if (q < kRiceMaxQ) {  // q + 2 + k <= 49 bits, all in w
    r->Skip(q + 2 + k);
    const uint64_t low = (w >> (q + 2)) & ((uint64_t{1} << k) - 1);
    return {0, false, (static_cast<uint64_t>(q) << k) | low};
  }
  const int e = static_cast<int>((w >> (1 + kRiceMaxQ)) & 127);
  r->Skip(kRiceLongPrefixBits);
  if (e >= 1 && e <= 64) return {0, false, ReadWide(r, e)};
  if (e == kRiceSpecialA || e == kRiceSpecialB) return {e, false, 0};
  return {-1, false, 0};
}

}  // namespace sundial::compress
