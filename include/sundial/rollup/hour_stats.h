// HourStats: the rollup of one series over one UTC hour, and the rules for
// combining hours into longer buckets so that the result is bit-identical to
// downsampling the raw points (query/ RunDouble over the values as doubles,
// in time order).
//
// Why these fields: the query downsampler works on doubles (an int64 value
// is converted with AsDouble) and always outputs a double, so every field is
// a double computed exactly as the raw path would compute it for a bucket
// that is this one hour:
//   sum      0.0 plus each non-NaN value, in time order
//   min_run  the running minimum as the raw path keeps it: the first value
//            (+inf if it is NaN), then each non-NaN value v < min_run;
//            +inf means "no value" at output time
//   max_run  the same with > and -inf
//   first, last  the first and last value (NaN included)
// Combining hours is exact for count/min/max/first/last. A sum over several
// hours equals the raw sequential sum only when every partial sum is
// exact: `integral` says every non-NaN value is an integer of magnitude
// <= 2^53, and CombinedSumExact() checks the bound over the bucket.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "sundial/common/types.h"

namespace sundial::rollup {

constexpr Timestamp kHourMs = 3600 * 1000;
constexpr Timestamp kDayMs = 24 * kHourMs;

// Floor of t to its UTC hour (and day).
inline Timestamp HourOf(Timestamp t) {
  Timestamp r = t % kHourMs;
  if (r < 0) r += kHourMs;
  return t - r;
}
inline Timestamp DayOf(Timestamp t) {
  Timestamp r = t % kDayMs;
  if (r < 0) r += kDayMs;
  return t - r;
}

struct HourStats {
  Timestamp hour = 0;      // start of the hour (epoch ms, UTC-aligned)
  uint64_t count = 0;      // points, NaN included
  uint64_t nan_count = 0;  // NaN points
  double sum = 0;
  double min_run = std::numeric_limits<double>::infinity();
  double max_run = -std::numeric_limits<double>::infinity();
  Timestamp first_t = 0, last_t = 0;
  double first = 0, last = 0;
  bool integral = true;  // every non-NaN value is an integer with |v| <= 2^53

  uint64_t valid() const { return count - nan_count; }
  bool empty() const { return count == 0; }

  // Adds the next point of the hour. REQUIRES: t increasing, HourOf(t) == hour.
  void Add(Timestamp t, double v) {
    if (count == 0) {
      first_t = t;
      first = v;
      min_run = std::isnan(v) ? std::numeric_limits<double>::infinity() : v;
      max_run = std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
    }
    ++count;
    last_t = t;
    last = v;
    if (std::isnan(v)) {
      ++nan_count;
      return;
    }
    sum += v;
    if (v < min_run) min_run = v;
    if (v > max_run) max_run = v;
    if (integral && !(std::fabs(v) <= 9007199254740992.0 && v == std::trunc(v))) {
      integral = false;
    }
  }

  // Bit equality of every field (NaN payloads included).
  bool SameAs(const HourStats& o) const;
};

// Downsampling functions that hours can answer.
enum class RollupFn : uint8_t { kSum, kCount, kMin, kMax, kAvg, kFirst, kLast };

// Accumulates consecutive hours (in time order) of one bucket.
class BucketCombiner {
 public:
  explicit BucketCombiner(RollupFn fn) : fn_(fn) {}
  void Reset() { *this = BucketCombiner(fn_); }
  void Add(const HourStats& h);
  bool empty() const { return count_ == 0; }
  // False when the result would not be bit-identical to the raw path (a
  // sum or avg over several hours with non-integral values or a magnitude
  // that may round). REQUIRES: !empty().
  bool Exact() const;
  // The bucket value as the raw downsampler computes it. REQUIRES: Exact().
  double Result() const;

 private:
  RollupFn fn_;
  uint64_t count_ = 0;
  uint64_t valid_ = 0;
  uint32_t hours_ = 0;
  bool integral_ = true;
  double abs_bound_ = 0;  // upper bound of the sum of |v|
  double sum_ = 0;
  double min_run_ = std::numeric_limits<double>::infinity();
  double max_run_ = -std::numeric_limits<double>::infinity();
  double first_ = 0, last_ = 0;
};

}  // namespace sundial::rollup
