// BitBuffer: the decoders' fast reader of an LSB-first bit stream (the bit
// order of bit_stream.h).
//
// It keeps the next bits of the stream in one 64-bit register. Refill() tops
// it up with a single unaligned 8-byte load, without a branch; reading is a
// mask and a shift. After Refill() at least 56 bits are available, enough
// for any short code. Longer fields go through ReadWide().
//
// There are no bounds checks: the caller guarantees that the 8 bytes at
// ptr are addressable at every Refill() (PageDecoder decodes the last bytes
// of a page from a zero-padded copy). Bit positions are byte offsets from a
// base the caller keeps.
#pragma once

#include <cstdint>

#include "force_inline.h"
#include "sundial/compress/bit_stream.h"

namespace sundial::compress {

struct BitBuffer {
  const uint8_t* ptr = nullptr;  // next byte whose bits are not all counted
  uint64_t bits = 0;             // bit 0 = the next bit of the stream
  uint32_t count = 0;            // bits of `bits` that are counted as read in

  // Starts reading at bit `pos` of the stream at base.
  void Init(const uint8_t* base, uint32_t pos) {
    ptr = base + (pos >> 3);
    bits = 0;
    count = 0;
    Refill();
    Consume(static_cast<int>(pos & 7));
  }

  // Afterwards count >= 56. The bits above count are stream bits too (they
  // are loaded again, identically, by the next refill).
  SUNDIAL_INLINE void Refill() {
    bits |= LoadLE64(ptr) << count;
    ptr += (63 - count) >> 3;
    count |= 56;
  }
  // REQUIRES: n <= count.
  SUNDIAL_INLINE void Consume(int n) {
    bits >>= n;
    count -= static_cast<uint32_t>(n);
  }
  // Reads n bits, n in [0, 64]. Refills as needed.
  SUNDIAL_INLINE uint64_t ReadWide(int n) {
    Refill();
    if (n <= 56) {
      const uint64_t v = bits & ((uint64_t{1} << n) - 1);
      Consume(n);
      return v;
    }
    const uint64_t lo = bits & 0xffffffffu;
    Consume(32);
    Refill();
    const uint64_t hi = bits & LowBits(n - 32);
    Consume(n - 32);
    return lo | (hi << 32);
  }

  // Bits consumed since base.
  uint32_t Pos(const uint8_t* base) const {
    return static_cast<uint32_t>(ptr - base) * 8u - count;
  }
};

}  // namespace sundial::compress
