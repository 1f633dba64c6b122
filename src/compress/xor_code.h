// Value codes of xor pages, page format v1 (see page_format.h): Gorilla XOR
// of consecutive float64 bit patterns with a reusable window of meaningful
// bits, plus a raw escape for int64 values.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "sundial/compress/bit_stream.h"

namespace sundial::compress {

constexpr uint8_t kNoWindow = 0xff;

// Writes n (0..64) bits of v.
SUNDIAL_INLINE void WriteBits(BitWriter* w, uint64_t v, int n) {
  if (n <= 57) {
    w->Write(v, n);
  } else {
    w->Write(v & 0xffffffffu, 32);
    w->Write(v >> 32, n - 32);
  }
}
SUNDIAL_INLINE uint64_t ReadBits(BitReader* r, int n) {
  if (n <= 57) return r->Read(n);
  const uint64_t lo = r->Read(32);
  return lo | (r->Read(n - 32) << 32);
}

// Trailing zero bits of x != 0. 32-bit targets count in halves: their
// 64-bit count is a library call.
inline int TrailingZeros64(uint64_t x) {
#if UINTPTR_MAX > 0xffffffffu
  return __builtin_ctzll(x);
#else
  const auto lo = static_cast<uint32_t>(x);
  return lo != 0 ? __builtin_ctz(lo) : 32 + __builtin_ctz(static_cast<uint32_t>(x >> 32));
#endif
}

// Leading-zero counts a "110" code can name (3-bit index), as in Chimp.
constexpr uint8_t kLeadRounding[8] = {0, 8, 12, 16, 18, 20, 22, 24};

// Index of the largest kLeadRounding entry <= l, for l in [0, 31].
constexpr uint8_t kLeadIndex[32] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
                                    3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7};
inline int RoundLead(int l) { return kLeadIndex[l]; }

// Writes the code for float bits cur after prev, choosing the cheapest code
// that holds x = cur ^ prev; updates the window.
SUNDIAL_INLINE void WriteXor(BitWriter* w, uint64_t cur, uint64_t prev, uint8_t* lead,
                     uint8_t* trail) {
  const uint64_t x = cur ^ prev;
  if (x == 0) {
    w->Write(0, 1);
    return;
  }
  int l = __builtin_clzll(x);
  const int t = TrailingZeros64(x);
  if (l > 31) l = 31;
  const int n = 64 - l - t;
  const int ri = RoundLead(l);
  const int lead_only = 6 + 64 - kLeadRounding[ri];
  const int full = 14 + n;
  if (*lead == kNoWindow) {
    if (66 <= lead_only && 66 <= full) {
      w->Write(0x1, 2);  // "10" with no window: the raw bits
      w->Write64(cur);
      return;
    }
  } else if (l >= *lead && t >= *trail) {
    const int reuse = 64 - *lead - *trail;
    if (2 + reuse <= lead_only && 2 + reuse <= full) {
      w->Write(0x1, 2);  // "10"
      WriteBits(w, x >> *trail, reuse);
      return;
    }
  }
  if (lead_only <= full) {
    *lead = kLeadRounding[ri];
    *trail = 0;
    w->Write(0x3 | (static_cast<uint64_t>(ri) << 3), 6);  // "110" + index
    WriteBits(w, x, 64 - *lead);
    return;
  }
  *lead = static_cast<uint8_t>(l);
  *trail = static_cast<uint8_t>(t);
  // "111", 5 bits lead, 6 bits width (64 -> 0).
  w->Write(0x7 | (static_cast<uint64_t>(l) << 3) | (static_cast<uint64_t>(n & 63) << 8), 14);
  WriteBits(w, x >> t, n);
}

inline void WriteXorIntEscape(BitWriter* w, uint64_t bits) {
  w->Write(0x7 | (uint64_t{31} << 3), 14);  // lead 31, width field 0 (64)
  w->Write64(bits);
}

}  // namespace sundial::compress
