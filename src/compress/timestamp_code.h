// Timestamp codes of page format v1 (see page_format.h): the delta-of-delta
// in page units (ms, or s in seconds pages) as an adaptive Rice code, and
// the run code; and the frame codes of version 2 (fixed-width deltas).
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

// Frame timestamps (version 2): bits of the frame's fields and escapes.
constexpr int kFrameWidthBits = 5;
constexpr int kFrameBaseLenBits = 6;
constexpr int kFrameEscapeLenBits = 6;

// A page's frame: deltas in [base, base + 2^w - 2] cost w bits.
struct TimestampFrame {
  uint64_t base = 0;  // wrapping
  int w = 1;          // 1..kMaxFrameWidth
  uint64_t escape() const { return (uint64_t{1} << w) - 1; }
};

// Writes the frame's fields (the start of a version 2 stream).
inline void WriteFrame(BitWriter* w, const TimestampFrame& f) {
  const uint64_t zz = ZigZag(f.base);
  const int b = BitWidth(zz);
  w->Write(static_cast<uint64_t>(f.w - 1) | (static_cast<uint64_t>(b) << kFrameWidthBits),
           kFrameWidthBits + kFrameBaseLenBits);
  WriteWide(w, zz, b);
}

// Reads the frame's fields. Overruns show in r->overrun().
inline TimestampFrame ReadFrame(BitReader* r) {
  TimestampFrame f;
  f.w = 1 + static_cast<int>(r->Read(kFrameWidthBits));
  const int b = static_cast<int>(r->Read(kFrameBaseLenBits));
  f.base = UnZigZag(ReadWide(r, b));
  return f;
}

// Bits of the code for delta in frame f.
inline int FrameCodeBits(const TimestampFrame& f, uint64_t delta) {
  if (delta - f.base < f.escape()) return f.w;
  return f.w + kFrameEscapeLenBits + BitWidth(ZigZag(delta));
}

// Writes the code for delta; returns whether it was an escape.
SUNDIAL_INLINE bool WriteFrameDelta(BitWriter* w, const TimestampFrame& f, uint64_t delta) {
  const uint64_t off = delta - f.base;
  if (off < f.escape()) {
    w->Write(off, f.w);
    return false;
  }
  const uint64_t zz = ZigZag(delta);
  const int b = BitWidth(zz);
  w->Write(f.escape() | (static_cast<uint64_t>(b) << f.w), f.w + kFrameEscapeLenBits);
  WriteWide(w, zz, b);
  return true;
}

// Reads one frame timestamp code: the delta. Overruns show in r->overrun().
SUNDIAL_INLINE uint64_t ReadFrameDelta(BitReader* r, const TimestampFrame& f) {
  const uint64_t off = r->Read(f.w);
  if (off != f.escape()) return f.base + off;
  const int b = static_cast<int>(r->Read(kFrameEscapeLenBits));
  return UnZigZag(ReadWide(r, b));
}

}  // namespace sundial::compress
