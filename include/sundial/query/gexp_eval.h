// The /api/query/gexp functions, with the semantics of OpenTSDB 2.4's
// src/query/expression/*.java, over plain series. Each function gets the
// results of its series arguments (metric queries or nested calls) and its
// other parameters as written (gexp_parser.h):
//
//   absolute(s...)            |v| of every series of every argument
//   scale(s..., f)            v * f (f a number)
//   alias(s, text...)         the first argument's series renamed: the
//                             parameters joined by ',' (quotes dropped),
//                             "@<tagk>" replaced by the series' tag value;
//                             tags and aggregateTags become empty
//   movingAverage(s..., w)    per series, the mean of the last w points
//                             (w digits) or of the points newer than
//                             t - w (w quoted: '30s', '5min', '1hr', '1d';
//                             units sec/s, min/m, hr/hour/h, day/d), the
//                             current point included and NaNs skipped;
//                             0 until the window is full (a time window
//                             needs a point at least w older; the first
//                             point is always 0)
//   highestCurrent(s..., n)   the n series whose last value in [start,
//                             end] is largest (series without one last)
//   highestMax(s..., n)       the n series whose largest value in [start,
//                             end] is largest
//   timeShift(s, 'p')         (also shift) the first argument's points moved p later
//                             (units sec, min, hr, day(s), week(s));
//                             its metric queries read [start-p, end-p]
//   sumSeries, diffSeries, multiplySeries, divideSeries(a, b, ...)
//   (also OpenTSDB's short names sum, difference, multiply, divide)
//                             2 to 26 arguments joined as a union on their
//                             tags (aggregated tags ignored) and combined
//                             as a + b + ..., a - b - ..., a * b * ...,
//                             a / b / ... at every timestamp of any of
//                             them (a missing value is 0, x / 0 is 0):
//                             exp_eval.h's evaluation of /api/query/exp
//
// Errors are InvalidArgument (HTTP 400) naming the function, plus the
// limits' ResourceExhausted / DeadlineExceeded.
//
// Thread-safety: pure functions over plain data.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/exp_eval.h"
#include "sundial/query/gexp_parser.h"

namespace sundial::query {

// One series of a gexp result: a group of a metric query or one series
// computed from them.
struct GexpSeries {
  std::string metric;
  std::vector<std::pair<std::string, std::string>> tags;  // sorted by key
  std::vector<std::string> aggregated_tags;               // sorted
  std::vector<Timestamp> ts;                              // increasing
  std::vector<double> values;                             // one per ts
};

using GexpSet = std::vector<GexpSeries>;

// The shift of a timeShift call in ms (its first parameter).
// REQUIRES: call.function == kTimeShift.
Status GexpTimeShift(const GexpNode& call, int64_t* shift_ms);

// Evaluates call over inputs (inputs[i] is the result of call.inputs[i]);
// [start_ms, end_ms] is the query's range. *out gets the result series.
Status EvaluateGexpCall(const GexpNode& call, std::vector<GexpSet> inputs, Timestamp start_ms,
                        Timestamp end_ms, const ExpEvalLimits& limits, GexpSet* out);

}  // namespace sundial::query
