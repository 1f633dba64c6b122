// BitWriter and BitReader: the bit streams under every page encoding.
//
// Bit order: LSB-first. Bit i of a stream is bit (i % 8) of byte i / 8, so a
// value written with Write(v, n) occupies stream bits [pos, pos + n) with
// bit 0 of v first. This order lets both sides move up to 57 bits with one
// unaligned little-endian 64-bit load (and, for the writer, one store), and
// lets a reader decode a unary prefix ("1110") with one count-trailing-zeros.
//
// Why no accumulator register: the writer's bytes are always complete, so a
// reader can decode an open page (the head) at any moment without a flush.
//
// Thread-safety: none; a stream is used by one thread at a time. Both
// classes borrow their buffer; the caller owns it.
#pragma once

#include <cstdint>
#include <cstring>

namespace sundial::compress {

// Loads/stores 8 bytes little-endian at an unaligned address.
inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}
inline void StoreLE64(uint8_t* p, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  std::memcpy(p, &v, sizeof(v));
}

// Mask of the low n bits, n in [0, 64].
inline uint64_t LowBits(int n) {
  return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
}

// Appends bits to a caller-owned buffer.
//
// REQUIRES (buffer): every bit at or after the start position is zero, and
// at least 8 bytes are addressable past the byte holding the last bit
// written (callers keep a slack area behind their capacity and check
// capacity themselves; the writer does no bounds checks on the hot path).
class BitWriter {
 public:
  BitWriter(uint8_t* buf, uint32_t bit_pos) : buf_(buf), pos_(bit_pos) {}

  // Appends the low n bits of v. REQUIRES: n <= 57, v < 2^n.
  void Write(uint64_t v, int n) {
    uint8_t* p = buf_ + (pos_ >> 3);
    StoreLE64(p, LoadLE64(p) | (v << (pos_ & 7)));
    pos_ += static_cast<uint32_t>(n);
  }
  // Appends all 64 bits of v.
  void Write64(uint64_t v) {
    Write(v & 0xffffffffu, 32);
    Write(v >> 32, 32);
  }
  // Replaces n bits at bit position at (< pos()) with v. REQUIRES: n <= 57,
  // v < 2^n, at + n <= pos().
  void Overwrite(uint32_t at, uint64_t v, int n) {
    uint8_t* p = buf_ + (at >> 3);
    const int shift = static_cast<int>(at & 7);
    uint64_t w = LoadLE64(p) & ~(LowBits(n) << shift);
    StoreLE64(p, w | (v << shift));
  }
  // Moves the end back to bit_pos (<= pos()) and zeroes everything from
  // there up to the old end, restoring the all-zero-after-end invariant.
  void Truncate(uint32_t bit_pos) {
    const uint32_t first = bit_pos >> 3;
    const uint32_t last = (pos_ + 7) >> 3;  // one past the last touched byte
    if (first < last) {
      buf_[first] &= static_cast<uint8_t>(LowBits(static_cast<int>(bit_pos & 7)));
      if (last > first + 1) std::memset(buf_ + first + 1, 0, last - first - 1);
    }
    pos_ = bit_pos;
  }

  uint32_t pos() const { return pos_; }

 private:
  uint8_t* buf_;
  uint32_t pos_;
};

// Reads bits from a borrowed byte span, never touching memory outside it.
// Bits past the end read as zero; overrun() then reports that the stream was
// consumed beyond its end, which a decoder must treat as corruption.
//
// REQUIRES: size < 2^29 bytes (bit positions are 32-bit).
class BitReader {
 public:
  BitReader() = default;
  BitReader(const uint8_t* data, uint32_t size, uint32_t bit_pos = 0)
      : data_(data), size_(size), pos_(bit_pos) {}

  // Returns the next 57 or more bits (bit 0 = next bit) without consuming
  // them; bits past the end of the span are zero.
  uint64_t Peek() const {
    const uint32_t byte = pos_ >> 3;
    if (byte + 8 <= size_) return LoadLE64(data_ + byte) >> (pos_ & 7);
    return PeekSlow(data_, size_, pos_);
  }
  void Skip(int n) { pos_ += static_cast<uint32_t>(n); }
  // Consumes and returns n bits. REQUIRES: n <= 57.
  uint64_t Read(int n) {
    const uint64_t v = Peek() & LowBits(n);
    pos_ += static_cast<uint32_t>(n);
    return v;
  }
  uint64_t Read64() {
    const uint64_t lo = Read(32);
    return lo | (Read(32) << 32);
  }

  uint32_t pos() const { return pos_; }
  const uint8_t* data() const { return data_; }
  uint32_t size() const { return size_; }
  // True when more bits were consumed than the span holds.
  bool overrun() const { return pos_ > size_ * 8u; }

 private:
  // Static, so that a reader held in registers need not live in memory.
#if defined(__GNUC__)
  __attribute__((noinline, cold))
#endif
  static uint64_t PeekSlow(const uint8_t* data, uint32_t size, uint32_t pos) {
    const uint32_t byte = pos >> 3;
    uint64_t v = 0;
    for (uint32_t i = 0; i < 8 && byte + i < size; ++i) {
      v |= static_cast<uint64_t>(data[byte + i]) << (8 * i);
    }
    return v >> (pos & 7);
  }

  const uint8_t* data_ = nullptr;
  uint32_t size_ = 0;
  uint32_t pos_ = 0;
};

}  // namespace sundial::compress
