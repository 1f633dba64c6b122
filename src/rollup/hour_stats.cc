#include "sundial/rollup/hour_stats.h"

#include "sundial/common/coding.h"

namespace sundial::rollup {
namespace {

bool SameBits(double a, double b) { return DoubleToBits(a) == DoubleToBits(b); }

// Sums of |v| at or below this are exact in any order (2^52 leaves room
// for the rounding of the bound itself).
constexpr double kExactSumBound = 4503599627370496.0;

}  // namespace

bool HourStats::SameAs(const HourStats& o) const {
  return hour == o.hour && count == o.count && nan_count == o.nan_count && SameBits(sum, o.sum) &&
         SameBits(min_run, o.min_run) && SameBits(max_run, o.max_run) && first_t == o.first_t &&
         last_t == o.last_t && SameBits(first, o.first) && SameBits(last, o.last) &&
         integral == o.integral;
}

void BucketCombiner::Add(const HourStats& h) {
  if (h.count == 0) return;
  if (count_ == 0) {
    first_ = h.first;
    min_run_ = h.min_run;
    max_run_ = h.max_run;
  } else {
    // The raw path keeps the earlier of equal values: strict comparisons.
    if (h.min_run < min_run_) min_run_ = h.min_run;
    if (h.max_run > max_run_) max_run_ = h.max_run;
  }
  last_ = h.last;
  count_ += h.count;
  valid_ += h.valid();
  ++hours_;
  sum_ += h.sum;
  integral_ = integral_ && h.integral;
  if (h.valid() > 0) {
    const double m = std::fmax(std::fabs(h.min_run), std::fabs(h.max_run));
    abs_bound_ += static_cast<double>(h.valid()) * m;
  }
}

bool BucketCombiner::Exact() const {
  if (hours_ <= 1) return true;
  if (fn_ != RollupFn::kSum && fn_ != RollupFn::kAvg) return true;
  return integral_ && abs_bound_ <= kExactSumBound;
}

double BucketCombiner::Result() const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (fn_) {
    case RollupFn::kSum:
      return valid_ == 0 ? nan : sum_;
    case RollupFn::kAvg:
      return valid_ == 0 ? nan : sum_ / static_cast<int32_t>(valid_);
    case RollupFn::kCount:
      return static_cast<double>(valid_);
    case RollupFn::kMin:
      return min_run_ == std::numeric_limits<double>::infinity() ? nan : min_run_;
    case RollupFn::kMax:
      return max_run_ == -std::numeric_limits<double>::infinity() ? nan : max_run_;
    case RollupFn::kFirst:
      return first_;
    case RollupFn::kLast:
      return last_;
  }
  return nan;
}

}  // namespace sundial::rollup
