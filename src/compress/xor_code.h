// Value codes of xor pages, page format v1 (see page_format.h): Gorilla XOR
// of consecutive float64 bit patterns with a reusable window of meaningful
// bits, plus a raw escape for int64 values.
#pragma once

#include <cstdint>

#include "sundial/compress/bit_stream.h"

namespace sundial::compress {

constexpr uint8_t kNoWindow = 0xff;

// Writes n (0..64) bits of v.
inline void WriteBits(BitWriter* w, uint64_t v, int n) {
  if (n <= 57) {
    w->Write(v, n);
  } else {
    w->Write(v & 0xffffffffu, 32);
    w->Write(v >> 32, n - 32);
  }
}
inline uint64_t ReadBits(BitReader* r, int n) {
  if (n <= 57) return r->Read(n);
  const uint64_t lo = r->Read(32);
  return lo | (r->Read(n - 32) << 32);
}

// Writes the code for float bits cur after prev; updates the window.
inline void WriteXor(BitWriter* w, uint64_t cur, uint64_t prev, uint8_t* lead,
                     uint8_t* trail) {
  const uint64_t x = cur ^ prev;
  if (x == 0) {
    w->Write(0, 1);
    return;
  }
  int l = __builtin_clzll(x);
  const int t = __builtin_ctzll(x);
  if (l > 31) l = 31;
  if (*lead != kNoWindow && l >= *lead && t >= *trail) {
    w->Write(0x1, 2);  // "10"
    WriteBits(w, x >> *trail, 64 - *lead - *trail);
    return;
  }
  const int n = 64 - l - t;
  *lead = static_cast<uint8_t>(l);
  *trail = static_cast<uint8_t>(t);
  // "11", 5 bits lead, 6 bits width (64 -> 0).
  w->Write(0x3 | (static_cast<uint64_t>(l) << 2) |
               (static_cast<uint64_t>(n & 63) << 7), 13);
  WriteBits(w, x >> t, n);
}

inline void WriteXorIntEscape(BitWriter* w, uint64_t bits) {
  w->Write(0x3 | (uint64_t{31} << 2), 13);  // lead 31, width field 0 (64)
  w->Write64(bits);
}

}  // namespace sundial::compress
