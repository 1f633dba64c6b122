// ReferencePageReader: a plain point-at-a-time decoder of page formats v1
// and v2 (page_format.h), kept as the specification the fast PageDecoder is
// checked against: both must return the same points and fail at the same
// point on any input.
#pragma once

#include <cstdint>
#include <string_view>

#include "sundial/common/coding.h"
#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/compress/bit_stream.h"
#include "sundial/compress/page_format.h"
#include "compress/timestamp_code.h"

namespace sundial::compress {

class ReferencePageReader {
 public:
  // An exhausted iterator with an ok status.
  ReferencePageReader() = default;
  // Same as Reset(page).
  explicit ReferencePageReader(std::string_view page) { Reset(page); }

  // Starts over on page, whose bytes must stay valid and unchanged while the
  // iterator uses them (it does not copy them). The page may be followed by
  // unused bytes. Validates the header: on error status() is Corruption and
  // Next() returns false.
  void Reset(std::string_view page);

  bool Next();
  bool Seek(Timestamp t);
  Timestamp t() const { return t_; }
  Value v() const {
    return is_int_ ? Value::Int(static_cast<int64_t>(bits_))
                   : Value::Float(BitsToDouble(bits_));
  }
  Status status() const { return status_; }

  // The validated header of the current page. REQUIRES: status().ok().
  const PageHeader& header() const { return h_; }

 private:
  bool Fail(const char* what);
  bool NextSpecial();
  bool Finish(BitReader in);
  bool DecodeValue(BitReader* in);
  bool DecodeIntDomain(BitReader* in);
  void ApplyIntCode(uint64_t c);
  void RunPoint();
  bool DecodeXor(BitReader* in);

  PageHeader h_;
  BitReader in_;
  Status status_;
  uint32_t left_ = 0;       // points not yet returned
  uint32_t run_left_ = 0;   // points left in the current run
  uint64_t unit_ = 1;       // ms per timestamp unit
  bool positioned_ = false; // the last Next()/Seek() returned true
  bool is_int_ = true;      // type and bits of the current value
  uint64_t bits_ = 0;
  Timestamp t_ = 0;
  int64_t x_ = 0;           // current timestamp in page units
  uint64_t delta_ = 0;      // page units, wrapping
  uint64_t native_ = 0;     // last native value (int, mantissa or float bits)
  uint64_t vdelta_ = 0;     // last native value delta (delta-of-delta pages)
  uint64_t ts_rice_ = 0;    // adaptive code states (src/compress/rice_code.h)
  uint64_t val_rice_ = 0;
  bool seen_native_ = false;
  bool second_ = true;      // the next timestamp code is point 1's
  uint8_t lead_ = 0xff;     // xor window; 0xff: none yet
  uint8_t trail_ = 0;
  bool first_ = true;
  TimestampFrame frame_;    // version 2 pages
};

}  // namespace sundial::compress
