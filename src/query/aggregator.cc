#include "sundial/query/aggregator.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

namespace sundial::query {
namespace {

using I = Interpolation;
using F = AggFn;
using E = Estimation;

// Sorted by name (byte order), so /api/aggregators can print it as is.
constexpr Aggregator kAggregators[] = {
    {"avg", F::kAvg, I::kLerp, 0, E::kLegacy},
    {"count", F::kCount, I::kZim, 0, E::kLegacy},
    {"dev", F::kDev, I::kLerp, 0, E::kLegacy},
    {"diff", F::kDiff, I::kLerp, 0, E::kLegacy},
    {"ep50r3", F::kPercentile, I::kLerp, 50, E::kR3},
    {"ep50r7", F::kPercentile, I::kLerp, 50, E::kR7},
    {"ep75r3", F::kPercentile, I::kLerp, 75, E::kR3},
    {"ep75r7", F::kPercentile, I::kLerp, 75, E::kR7},
    {"ep90r3", F::kPercentile, I::kLerp, 90, E::kR3},
    {"ep90r7", F::kPercentile, I::kLerp, 90, E::kR7},
    {"ep95r3", F::kPercentile, I::kLerp, 95, E::kR3},
    {"ep95r7", F::kPercentile, I::kLerp, 95, E::kR7},
    {"ep999r3", F::kPercentile, I::kLerp, 99.9, E::kR3},
    {"ep999r7", F::kPercentile, I::kLerp, 99.9, E::kR7},
    {"ep99r3", F::kPercentile, I::kLerp, 99, E::kR3},
    {"ep99r7", F::kPercentile, I::kLerp, 99, E::kR7},
    {"first", F::kFirst, I::kZim, 0, E::kLegacy},
    {"last", F::kLast, I::kZim, 0, E::kLegacy},
    {"max", F::kMax, I::kLerp, 0, E::kLegacy},
    {"median", F::kMedian, I::kLerp, 0, E::kLegacy},
    {"mimmax", F::kMax, I::kMin, 0, E::kLegacy},
    {"mimmin", F::kMin, I::kMax, 0, E::kLegacy},
    {"min", F::kMin, I::kLerp, 0, E::kLegacy},
    {"mult", F::kMult, I::kLerp, 0, E::kLegacy},
    {"none", F::kNone, I::kZim, 0, E::kLegacy},
    {"p50", F::kPercentile, I::kLerp, 50, E::kLegacy},
    {"p75", F::kPercentile, I::kLerp, 75, E::kLegacy},
    {"p90", F::kPercentile, I::kLerp, 90, E::kLegacy},
    {"p95", F::kPercentile, I::kLerp, 95, E::kLegacy},
    {"p99", F::kPercentile, I::kLerp, 99, E::kLegacy},
    {"p999", F::kPercentile, I::kLerp, 99.9, E::kLegacy},
    {"pfsum", F::kSum, I::kPrev, 0, E::kLegacy},
    {"squareSum", F::kSquareSum, I::kZim, 0, E::kLegacy},
    {"sum", F::kSum, I::kLerp, 0, E::kLegacy},
    {"zimsum", F::kSum, I::kZim, 0, E::kLegacy},
};

// Positions in kAggregators of the names starting with each byte value
// (names are sorted, so each byte's names are one run). Built at compile
// time.
struct FirstCharIndex {
  uint8_t begin[256];
  uint8_t end[256];
};

constexpr FirstCharIndex BuildFirstCharIndex() {
  FirstCharIndex idx{};
  constexpr size_t n = sizeof(kAggregators) / sizeof(kAggregators[0]);
  static_assert(n < 256, "index is uint8_t");
  for (size_t i = n; i-- > 0;) {
    const auto c = static_cast<unsigned char>(kAggregators[i].name[0]);
    if (idx.end[c] == 0) idx.end[c] = static_cast<uint8_t>(i + 1);
    idx.begin[c] = static_cast<uint8_t>(i);
  }
  return idx;
}

constexpr FirstCharIndex kByFirstChar = BuildFirstCharIndex();

int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
// Java long division (truncating; MIN / -1 wraps to MIN).
int64_t JavaDiv(int64_t a, int64_t b) {
  if (b == -1) return WrapSub(0, a);
  return a / b;
}
// Java (long) cast of a double: NaN -> 0, saturating.
int64_t JavaLong(double d) {
  if (std::isnan(d)) return 0;
  if (d >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (d <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// Apache Commons Math 3.6.1 Percentile over sorted v[0..n), n >= 1.
double Percentile(const double* sorted, size_t n, double quantile, Estimation est) {
  const double p = quantile / 100.0;
  const double len = static_cast<double>(n);
  double pos = 0;
  switch (est) {
    case Estimation::kLegacy:
      pos = p == 0 ? 0 : (p == 1 ? len : p * (len + 1));
      break;
    case Estimation::kR3:
      pos = p <= 0.5 / len ? 0 : std::nearbyint(len * p);
      break;
    case Estimation::kR7:
      pos = p == 0 ? 0 : (p == 1 ? len : 1 + (len - 1) * p);
      break;
  }
  if (pos < 1) return sorted[0];
  if (pos >= len) return sorted[n - 1];
  const double fpos = std::floor(pos);
  const size_t ipos = static_cast<size_t>(fpos);
  const double lower = sorted[ipos - 1];
  const double upper = sorted[ipos];
  return lower + (pos - fpos) * (upper - lower);
}

// Moves the non-NaN values to the front; returns their count.
size_t CompactNonNaN(double* v, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isnan(v[i])) v[k++] = v[i];
  }
  return k;
}

double DevDouble(const double* v, size_t n) {
  size_t i = 0;
  double old_mean = v[i++];
  while (std::isnan(old_mean) && i < n) old_mean = v[i++];
  if (std::isnan(old_mean)) return std::nan("");
  if (i >= n) return 0.0;
  int64_t cnt = 2;
  double m2 = 0;
  for (; i < n; ++i) {
    const double x = v[i];
    if (std::isnan(x)) continue;
    const double new_mean = old_mean + (x - old_mean) / static_cast<double>(cnt);
    m2 += (x - old_mean) * (x - new_mean);
    old_mean = new_mean;
    ++cnt;
  }
  return cnt == 2 ? 0.0 : std::sqrt(m2 / static_cast<double>(cnt - 1));
}

}  // namespace

const Aggregator* FindAggregator(std::string_view name) {
  if (name.empty()) return nullptr;
  const auto first = static_cast<unsigned char>(name[0]);
  for (uint8_t i = kByFirstChar.begin[first]; i < kByFirstChar.end[first]; ++i) {
    const Aggregator& a = kAggregators[i];
    if (a.name.size() == name.size() && a.name == name) return &a;
  }
  return nullptr;
}

const Aggregator* AllAggregators(size_t* n) {
  *n = sizeof(kAggregators) / sizeof(kAggregators[0]);
  return kAggregators;
}

double RunDouble(const Aggregator& agg, double* v, size_t n) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (agg.fn) {
    case AggFn::kSum:
    case AggFn::kSquareSum: {
      double r = 0;
      size_t k = 0;
      for (size_t i = 0; i < n; ++i) {
        if (std::isnan(v[i])) continue;
        r += agg.fn == AggFn::kSum ? v[i] : v[i] * v[i];
        ++k;
      }
      return k == 0 ? nan : r;
    }
    case AggFn::kMin: {
      double m = std::isnan(v[0]) ? std::numeric_limits<double>::infinity() : v[0];
      for (size_t i = 1; i < n; ++i) {
        if (!std::isnan(v[i]) && v[i] < m) m = v[i];
      }
      return m == std::numeric_limits<double>::infinity() ? nan : m;
    }
    case AggFn::kMax: {
      double m = std::isnan(v[0]) ? -std::numeric_limits<double>::infinity() : v[0];
      for (size_t i = 1; i < n; ++i) {
        if (!std::isnan(v[i]) && v[i] > m) m = v[i];
      }
      return m == -std::numeric_limits<double>::infinity() ? nan : m;
    }
    case AggFn::kAvg: {
      double r = 0;
      int32_t k = 0;
      for (size_t i = 0; i < n; ++i) {
        if (std::isnan(v[i])) continue;
        r += v[i];
        ++k;
      }
      return k == 0 ? nan : r / k;
    }
    case AggFn::kMedian: {
      const size_t k = CompactNonNaN(v, n);
      if (k == 0) return nan;
      std::nth_element(v, v + k / 2, v + k);
      return v[k / 2];
    }
    case AggFn::kMult: {
      double r = v[0];
      for (size_t i = 1; i < n; ++i) r *= v[i];
      return r;
    }
    case AggFn::kDev:
      return DevDouble(v, n);
    case AggFn::kDiff: {
      size_t i = 0;
      double first = v[i++];
      while (std::isnan(first) && i < n) first = v[i++];
      if (std::isnan(first)) return nan;
      if (i >= n) return 0.0;
      return v[n - 1] - first;
    }
    case AggFn::kCount: {
      double r = 0;
      for (size_t i = 0; i < n; ++i) r += std::isnan(v[i]) ? 0 : 1;
      return r;
    }
    case AggFn::kFirst:
      return v[0];
    case AggFn::kLast:
    case AggFn::kNone:
      return v[n - 1];
    case AggFn::kPercentile: {
      const size_t k = CompactNonNaN(v, n);
      if (k == 0) return nan;
      std::sort(v, v + k);
      return Percentile(v, k, agg.percentile, Estimation::kLegacy);
    }
  }
  return nan;
}

int64_t RunLong(const Aggregator& agg, int64_t* v, size_t n) {
  switch (agg.fn) {
    case AggFn::kSum: {
      int64_t r = v[0];
      for (size_t i = 1; i < n; ++i) r = WrapAdd(r, v[i]);
      return r;
    }
    case AggFn::kSquareSum: {
      int64_t r = 0;
      for (size_t i = 0; i < n; ++i) r = WrapAdd(r, WrapMul(v[i], v[i]));
      return r;
    }
    case AggFn::kMin: return *std::min_element(v, v + n);
    case AggFn::kMax: return *std::max_element(v, v + n);
    case AggFn::kAvg: {
      int64_t r = v[0];
      for (size_t i = 1; i < n; ++i) r = WrapAdd(r, v[i]);
      return JavaDiv(r, static_cast<int32_t>(n));
    }
    case AggFn::kMedian:
      std::nth_element(v, v + n / 2, v + n);
      return v[n / 2];
    case AggFn::kMult: {
      int64_t r = v[0];
      for (size_t i = 1; i < n; ++i) r = WrapMul(r, v[i]);
      return r;
    }
    case AggFn::kDev: {
      if (n == 1) return 0;
      double old_mean = static_cast<double>(v[0]);
      int64_t cnt = 2;
      double m2 = 0;
      for (size_t i = 1; i < n; ++i) {
        const double x = static_cast<double>(v[i]);
        const double new_mean = old_mean + (x - old_mean) / static_cast<double>(cnt);
        m2 += (x - old_mean) * (x - new_mean);
        old_mean = new_mean;
        ++cnt;
      }
      return JavaLong(std::sqrt(m2 / static_cast<double>(cnt - 1)));
    }
    case AggFn::kDiff: return n == 1 ? 0 : WrapSub(v[n - 1], v[0]);
    case AggFn::kCount: return static_cast<int64_t>(n);
    case AggFn::kFirst: return v[0];
    case AggFn::kLast:
    case AggFn::kNone: return v[n - 1];
    case AggFn::kPercentile: {
      std::vector<double> d(v, v + n);
      std::sort(d.begin(), d.end());
      return JavaLong(Percentile(d.data(), n, agg.percentile, agg.estimation));
    }
  }
  return 0;
}

}  // namespace sundial::query
