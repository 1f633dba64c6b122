// Plain Gorilla, the benchmark's baseline: delta-of-delta timestamps in ms
// and XOR floats, as in the Gorilla paper with Prometheus' ms buckets
// (0 | 10+14 bits | 110+17 | 1110+20 | 1111+64). A page is a 2-byte point
// count, then the first timestamp and value raw (64 bits each), then the
// codes. Values are doubles (ints are converted, as Gorilla stores only
// floats). Pages fill to the same capacity as Sundial's.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "sundial/common/types.h"
#include "sundial/compress/bit_stream.h"

namespace sundial::bench {

class GorillaPage {
 public:
  explicit GorillaPage(uint32_t page_size);
  // Returns false (page unchanged) when the point does not fit.
  bool Append(Timestamp t, double v);
  void Reset();
  std::string_view data() const;
  uint32_t count() const { return count_; }

 private:
  uint32_t page_size_;
  std::unique_ptr<uint8_t[]> buf_;
  uint32_t pos_ = 0;
  uint32_t count_ = 0;
  Timestamp prev_t_ = 0;
  int64_t prev_delta_ = 0;
  uint64_t prev_v_ = 0;
  uint8_t lead_ = 0xff, trail_ = 0;
};

class GorillaReader {
 public:
  explicit GorillaReader(std::string_view page);
  bool Next();
  Timestamp t() const { return t_; }
  double v() const;

 private:
  compress::BitReader in_;
  uint32_t left_ = 0;
  bool first_ = true;
  Timestamp t_ = 0;
  int64_t delta_ = 0;
  uint64_t v_ = 0;
  uint8_t lead_ = 0, trail_ = 0;
};

}  // namespace sundial::bench
