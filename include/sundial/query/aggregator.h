// Aggregators: OpenTSDB's 35 aggregation functions with their
// interpolation modes and their integer ("long") and double math
// (opentsdb-compat.md §5.8).
//
// Why one table: /api/aggregators, the query parser, downsampling and the
// cross-series merge all read the same constant list, so a name and its
// semantics cannot drift apart.
//
// Thread-safety: the table is immutable; the Run functions are pure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sundial::query {

// How a series without a point at an output timestamp is given a value.
enum class Interpolation : uint8_t { kLerp, kZim, kMax, kMin, kPrev };

enum class AggFn : uint8_t {
  kSum, kMin, kMax, kAvg, kMedian, kMult, kDev, kDiff, kCount, kFirst, kLast,
  kSquareSum, kNone, kPercentile,
};

// Apache Commons Math percentile estimation types used by OpenTSDB.
enum class Estimation : uint8_t { kLegacy, kR3, kR7 };

struct Aggregator {
  std::string_view name;
  AggFn fn;
  Interpolation interp;
  double percentile;     // (0, 100] for kPercentile
  Estimation estimation; // integer mode only; double mode always kLegacy
};

// The aggregator called `name` (case-sensitive), or nullptr.
const Aggregator* FindAggregator(std::string_view name);
// All aggregators, sorted by name. *n receives the count (35).
const Aggregator* AllAggregators(size_t* n);

// Double-mode result over v[0..n) in series order (NaN-aware as in
// OpenTSDB). May reorder v. REQUIRES: n >= 1.
double RunDouble(const Aggregator& agg, double* v, size_t n);
// Integer-mode result (Java long arithmetic: wrapping, truncating
// division). May reorder v. REQUIRES: n >= 1.
int64_t RunLong(const Aggregator& agg, int64_t* v, size_t n);

}  // namespace sundial::query
