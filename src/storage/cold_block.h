// Columnar cold blocks: one series' points of one partition as columns
// that zstd compresses well (cold_file.h, version 3).
//
// Why: pages (compress/page_format.h) are bit streams made for appending
// one point at a time; zstd finds almost nothing left in them. A cold block
// is written once and read whole, so it can look at all its points first:
// regular timestamps shrink to (start, step), values that are short
// decimals become integers, and integer deltas are stored as byte planes
// (all low bytes, then all next bytes, ...) so that zstd's entropy coder
// sees one kind of byte at a time and drops the all-zero planes.
//
// Layout (before zstd), little-endian, varints as in common/coding.h:
//   varint32 n                       points, 1..kMaxColdBlockPoints
//   timestamps:
//     varint64 zigzag(t0 - partition start)
//     n > 1: varint64 zigzag(step); varint32 k; k exceptions, each
//       varint32 gap, varint64 zigzag(delta - step): point i (i >= 1, gap =
//       i - previous exception's i, the first: i) has t_i - t_(i-1) = delta;
//       every other point is step after the one before it.
//   values:
//     byte kind: 0 int64, 1 decimal (a float64 m / 10^scale), 2 xor
//       (float64 bits); kind 1 is followed by byte scale (0..15)
//     varint32 k; k exceptions, each varint32 gap (index - previous
//       exception's index - 1; the first: its index), byte type (0 int64,
//       1 float64), fixed64 raw bits: the values the kind cannot hold
//       (floats in an int block, NaN, -0.0 or long decimals in a decimal
//       block, ints in a xor block)
//     the other c = n - k values ("native"), in order, if c > 0:
//       kinds 0 and 1: m_i is the int or mantissa; varint64 zigzag(m_0);
//         d_i = m_i - m_(i-1) for i >= 1 (wrapping); varint64 zigzag(base)
//         with base = min d_i, byte width w (0..8), then the c - 1 values
//         d_i - base as w byte planes
//       kind 2: x_i = bits(v_i) XOR bits(v_(i-1)) (v_(-1) = 0.0), as 8 byte
//         planes of c values
//   nothing follows.
// A byte plane of c values holds byte j (0 = lowest) of each value, as
//   varint32 len, then len = 0: the c bytes; len > 0: one zstd frame of len
//   bytes holding them. Each plane gets its own zstd frame, so its own
//   entropy code: low bytes are near random, high bytes mostly zero, and
//   one code for both would spend about a bit more per byte.
// Exact round trip: every value keeps its type and bits (NaN payloads and
// -0.0 included), every timestamp its millisecond.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/compress/zstd_codec.h"

namespace sundial::storage {

// A block holds at most this many points (16 bytes each once decoded); a
// series with more in one partition is stored as pages instead.
constexpr uint32_t kMaxColdBlockPoints = 1u << 20;

// Where a block's bytes go, before zstd (bench/cold_file_stats).
struct ColdBlockStats {
  uint64_t header = 0;      // point count, value kind
  uint64_t timestamps = 0;  // start, step, timestamp exceptions
  uint64_t values = 0;      // native values
  uint64_t value_exceptions = 0;
};

// Appends the block of points to *out. REQUIRES: 1 <= points.size() <=
// kMaxColdBlockPoints, timestamps ascending.
// zstd compresses the byte planes.
void EncodeColdBlock(const std::vector<Sample>& points, Timestamp partition_start,
                     compress::ZstdCodec* zstd, std::string* out,
                     ColdBlockStats* stats = nullptr);

// Replaces *ts and *vs with the block in's timestamps and values (columns:
// what readers copy runs of). Corruption when in is not exactly one
// well-formed block; safe on any bytes.
Status DecodeColdBlock(std::string_view in, Timestamp partition_start,
                       compress::ZstdCodec* zstd, std::vector<Timestamp>* ts,
                       std::vector<Value>* vs);

}  // namespace sundial::storage
