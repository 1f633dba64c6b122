// Helpers shared by the rollup tests: temp dirs, seeds, a reference
// downsampler written from the spec (opentsdb-compat.md §5.6/§5.8) without
// the rollup code.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "storage/test_util.h"
#include "sundial/rollup/hour_stats.h"

namespace sundial::rollup::testing {

// Temp dirs as in storage's tests (rollup sits on storage).
using storage::testing::TempDir;

// SUNDIAL_SEED if set, else a random seed; printed either way.
inline uint64_t TestSeed() { return storage::testing::TestSeed(std::random_device{}()); }

// The raw downsampler's value of fn over values in time order (n >= 1).
inline double Reference(RollupFn fn, const std::vector<double>& v) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  double r = 0;
  int32_t k = 0;
  switch (fn) {
    case RollupFn::kSum:
    case RollupFn::kAvg:
      for (double x : v) {
        if (std::isnan(x)) continue;
        r += x;
        ++k;
      }
      if (k == 0) return nan;
      return fn == RollupFn::kSum ? r : r / k;
    case RollupFn::kCount:
      for (double x : v) r += std::isnan(x) ? 0 : 1;
      return r;
    case RollupFn::kMin: {
      double m = std::isnan(v[0]) ? inf : v[0];
      for (size_t i = 1; i < v.size(); ++i) {
        if (!std::isnan(v[i]) && v[i] < m) m = v[i];
      }
      return m == inf ? nan : m;
    }
    case RollupFn::kMax: {
      double m = std::isnan(v[0]) ? -inf : v[0];
      for (size_t i = 1; i < v.size(); ++i) {
        if (!std::isnan(v[i]) && v[i] > m) m = v[i];
      }
      return m == -inf ? nan : m;
    }
    case RollupFn::kFirst:
      return v.front();
    case RollupFn::kLast:
      return v.back();
  }
  return nan;
}

inline bool SameDouble(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(a)) == 0;
}

}  // namespace sundial::rollup::testing
