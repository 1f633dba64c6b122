// Page format, versions 1 and 2: a compressed run of (timestamp, value)
// points of one series. Version 2 differs from version 1 only in its
// timestamp codes ("frame" timestamps, below); a writer uses version 1 for
// every page that does not use them, so version 1 pages are unchanged.
//
// A page is a fixed 20-byte header followed by a bit stream. All header
// integers are little-endian. Nothing is padded; callers may store a page in
// a larger zero-filled slot (the reader stops after `count` points).
//
//   offset size field
//   0      1    version       1, or 2 (kFramePageFormatVersion): frame
//                             timestamps
//   1      1    encoding      bits 0-1 value encoding: 0 int, 1 decimal, 2 xor
//                             bit  2   timestamps coded in seconds (all are
//                                      multiples of 1000 ms); always 0 in
//                                      version 2
//                             bit  3   values coded as delta-of-delta
//                                      (int and decimal pages only)
//                             bits 4-7 parameter p: the decimal scale s in
//                                      decimal pages, the delta shift in
//                                      int pages, 0 in xor pages
//   2      2    count         number of points, 0..65535
//   4      8    first_t       timestamp of the first point (int64 ms)
//   12     4    min_back      first_t - min_t   (uint32, ms)
//   16     4    max_ahead     max_t - first_t   (uint32, ms)
//   20     ...  bit stream    LSB-first (see bit_stream.h)
//
// So max_t - min_t < 2^32 ms (about 49 days) for every page.
//
// Bit stream: points in arrival order (timestamps may go backwards or repeat).
// Point 0 is its value code only (its timestamp is first_t). Every later
// point is a timestamp code then a value code, except that a run code stands
// for several whole points.
//
// Adaptive Rice code R(z) for z >= 0, with a state a (uint64, starts at 0)
// and k = min(40, floor(log2(a >> 4))), or 0 when a >> 4 < 2:
//   0                                   z = 0
//   1 + q ones + 0 + k bits             z - 1 = q * 2^k + those bits, q < 8
//   1 + 11111111 + 7 bits e + e bits    z - 1 in e bits, e in 1..64
//   1 + 11111111 + 7 bits e             e = 65 or 66: special, see below
// After a nonzero, non-special code that "adapts":
//   a += min(z - 1, 2^40) - (a >> 4).
// (Codes are written first bit first; "10" means a 1 bit then a 0 bit.)
//
// Timestamp code. Let u = 1000 in seconds pages, else 1, x = t / u, delta =
// x - x_prev, dod = delta - delta_prev (delta_prev = 0 before point 1; all
// arithmetic wraps mod 2^64): R(zigzag(dod)) with the page's timestamp
// state, adapting for every point but point 1. Special e = 65 is a run:
// a 16-bit count n >= 1 follows, standing for n more points, each decoded
// exactly as a timestamp code "0" followed by a value code "0" (same step;
// the same value, or in delta-of-delta value pages the same value step).
//
// Value code, int and decimal pages. The page's native type is int64 (int
// pages) or float64 (decimal pages, value = double(m) / 10^s computed as one
// IEEE division, m int64, which the encoder checks is bit-identical; the
// encoder only uses |m| < 10^15). Let m be the native value as int64 (the
// int itself, or the decimal mantissa) and d = m - m_prev (m_prev = 0 before
// the first native value; wraps). The first native value is coded as
// R(zigzag(m)); every later one as R(zigzag(c)) where, with d' = d >> p in
// int pages (p = the delta shift; d is then a multiple of 2^p; arithmetic
// shift) and d' = d in decimal pages, c = d' or, with bit 3 set,
// c = d' - d'_prev (d'_prev = 0 at the second native value). The page's
// value state adapts on all but the first native value. Specials: e = 65 is an
// escaped float64, e = 66 an escaped int64, their 64 raw bits follow.
// Escaped values (the other type, or a float that is not a decimal of scale
// s) do not change m_prev.
//
// Value code, xor pages (Gorilla, with a Chimp-style short window code):
// x = bits(v) XOR bits(prev native float) (prev = 0.0's bits before the
// first). A window (lead, trail) is the zero bits kept at both ends; none is
// set when the page starts.
//   0                         x = 0, same value
//   10  + w bits              x fits the window: its w = 64 - lead - trail
//                             middle bits
//   10  + 64 bits             while no window is set: the value's raw bits
//   110 + 3 bits i + w bits   window (L[i], 0), w = 64 - L[i], with
//                             L = {0, 8, 12, 16, 18, 20, 22, 24}
//   111 + 5 bits lead + 6 bits w (0 means 64) + w bits   window (lead,
//                             64 - lead - w)
//   111 + 11111 + 000000 + 64 bits   escape: an int64, raw bits (lead 31
//                             with w 64 is otherwise impossible)
// The encoder picks the cheapest code that holds x.
//
// Frame timestamps (version 2). For timestamps with jitter (say 10 s +- 1 s
// in ms) the delta-of-delta codes above cost ~14 bits and, adaptive and
// variable-length, must be decoded one after the other; a fixed-width delta
// relative to a page-wide base ("frame of reference") is smaller and needs
// no state. When count > 0 the bit stream starts with the frame:
//   5 bits w - 1 (w = 1..32), 6 bits b, b bits zigzag(base)
// (base: a wrapping uint64 delta in ms). Point 0 is its value code only, as
// in version 1. Every later point is a timestamp code then a value code:
//   w bits f, f < 2^w - 1         delta = base + f
//   w bits f = 2^w - 1 (all ones) + 6 bits e + e bits z   delta = unzigzag(z)
// and t = t_prev + delta (wrapping). There are no run codes. Value codes are
// exactly those of version 1.
//
// Version policy: a reader rejects any other version as Corruption. A new
// layout gets a new version number; versions 1 and 2 stay readable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sundial/common/status.h"
#include "sundial/common/types.h"

namespace sundial::compress {

constexpr uint8_t kPageFormatVersion = 1;
constexpr uint8_t kFramePageFormatVersion = 2;  // frame timestamps
constexpr int kMaxFrameWidth = 32;
constexpr uint32_t kPageHeaderSize = 20;
constexpr uint32_t kMinPageSize = 128;
constexpr uint32_t kMaxPageSize = 65536;
constexpr uint32_t kDefaultPageSize = 512;
constexpr uint32_t kMaxPointsPerPage = 65535;
constexpr uint64_t kMaxPageSpanMs = 0xffffffffu;  // max_t - min_t
constexpr int kMaxDecimalScale = 15;
constexpr int kMaxIntShift = 15;

// How a page codes its values (bits 0-1 of the encoding byte).
enum class ValueEncoding : uint8_t {
  kInt = 0,      // int64, zigzag delta (shifted)
  kDecimal = 1,  // float64 as int64 mantissa x 10^-scale, zigzag delta
  kXor = 2,      // float64, Gorilla XOR
};

// The decoded, validated page header.
struct PageHeader {
  ValueEncoding value_encoding = ValueEncoding::kInt;
  bool seconds = false;  // timestamps coded in whole seconds
  // Decimal pages: the decimal scale (0..kMaxDecimalScale). Int pages: the
  // delta shift (0..15). Xor pages: 0.
  uint8_t param = 0;
  bool value_dod = false;  // int/decimal values coded as delta-of-delta
  bool frame = false;      // frame timestamps (version 2); then !seconds
  uint32_t count = 0;
  Timestamp first_t = 0;
  Timestamp min_t = 0;
  Timestamp max_t = 0;
};

// Packs/unpacks the encoding byte (offset 1).
uint8_t EncodingByte(ValueEncoding e, bool seconds, uint8_t param, bool value_dod);

// Parses and validates the header at the front of page. Returns Corruption
// if page is shorter than kPageHeaderSize, the version is unknown, the
// encoding byte is invalid, or the time range is inconsistent. Reads only
// page[0, kPageHeaderSize).
Status DecodePageHeader(std::string_view page, PageHeader* header);

// Writes the 20 header bytes for h at dst. REQUIRES: h is consistent
// (min_t <= first_t <= max_t, max_t - min_t <= kMaxPageSpanMs).
void EncodePageHeader(const PageHeader& h, char* dst);

}  // namespace sundial::compress
