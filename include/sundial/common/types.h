// Domain types shared by every module: timestamps, series ids, values.
//
// Timestamps are int64 milliseconds since the Unix epoch everywhere inside
// Sundial (never time_t). Points written in seconds are stored as s * 1000.
// A value keeps the type it came in with: OpenTSDB prints and aggregates
// integers differently from floats, so Value is int64 or float64.
#pragma once

#include <cstdint>
#include <limits>

namespace sundial {

using Timestamp = int64_t;  // epoch milliseconds
using SeriesId = uint32_t;  // dense, assigned in creation order from 0

constexpr Timestamp kMinTimestamp = std::numeric_limits<int64_t>::min();
constexpr Timestamp kMaxTimestamp = std::numeric_limits<int64_t>::max();
constexpr SeriesId kInvalidSeriesId = std::numeric_limits<uint32_t>::max();

// An int64 or a float64 sample value. Trivially copyable, 16 bytes.
class Value {
 public:
  constexpr Value() : i_(0), is_int_(true) {}
  static constexpr Value Int(int64_t v) { return Value(v); }
  static constexpr Value Float(double v) { return Value(v); }

  constexpr bool is_int() const { return is_int_; }
  // REQUIRES: is_int().
  constexpr int64_t int_value() const { return i_; }
  // REQUIRES: !is_int().
  constexpr double float_value() const { return d_; }
  // The value as a double, whatever its type (int64 may round).
  constexpr double AsDouble() const {
    return is_int_ ? static_cast<double>(i_) : d_;
  }

  // Bit-exact equality: same type and same bits (NaN == NaN with equal
  // payload, +0.0 != -0.0).
  bool BitEquals(const Value& o) const;

 private:
  constexpr explicit Value(int64_t v) : i_(v), is_int_(true) {}
  constexpr explicit Value(double v) : d_(v), is_int_(false) {}

  union {
    int64_t i_;
    double d_;
  };
  bool is_int_;
};

// One point of one series.
struct Sample {
  Timestamp t = 0;
  Value v;
};

}  // namespace sundial
