// Joining and evaluating the variables of one /api/query/exp expression,
// with OpenTSDB's ExpressionIterator, UnionIterator, IntersectionIterator
// and TimeSyncedIterator semantics:
//
// Join. Each series of each variable gets a join key: its tags (only those
// whose key the metric's filters name, with useQueryTags) plus, with
// includeAggTags, the names of its aggregated tags. A series without tags
// has the empty key, whatever its aggregated tags. Series with equal keys
// form one output series, in key order. "union" keeps every key; a
// variable without a series there counts as 0 at every timestamp.
// "intersection" keeps the keys every variable has; when no key is left
// (and some variable had a series) the query fails: "No intersections
// found". A variable with two series of one key keeps the last.
//
// Evaluation. The output timestamps are the union of the timestamps of all
// joined series. At each, a variable takes its series' value there; if
// the series has no point there or the value is NaN, the variable's fill
// value is used instead (a metric's fillPolicy, zero by default; an
// expression's fillPolicy, NaN by default).
//
// Output series: tags of the first variable that has the series,
// aggregated tags and metric names merged over all variables.
//
// Thread-safety: pure functions over plain data.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/exp_expr.h"

namespace sundial::query {

// One series of a variable: a group of a metric's query, or one output
// series of an expression.
struct ExpSeries {
  std::vector<std::pair<std::string, std::string>> tags;  // sorted by key
  std::vector<std::string> aggregated_tags;               // sorted
  std::vector<std::string> metrics;                       // sorted, distinct
  std::vector<Timestamp> ts;                              // increasing
  std::vector<double> values;                             // one per ts
};

// The result of a variable: its series and how its gaps are filled.
struct ExpSet {
  std::vector<ExpSeries> series;
  double fill = 0;                       // the variable's fill value
  std::vector<std::string> query_tagks;  // metrics: the filters' tag keys (sorted)
};

struct ExpJoinSpec {
  bool intersection = false;
  bool use_query_tags = false;
  bool include_agg_tags = true;
};

// Limits of one evaluation (0 = none): points in the result (series x
// timestamps), bytes it holds, and a wall-clock deadline.
struct ExpEvalLimits {
  uint64_t max_output_points = 0;
  uint64_t max_memory = 0;
  std::chrono::steady_clock::time_point deadline{};  // default: none
  int64_t deadline_ms = 0;  // for the message only
};

// Adds the increasing timestamps ts to the increasing set *times (a union;
// cheap when ts equals *times, the common case of aligned series).
void MergeTimestamps(const std::vector<Timestamp>& ts, std::vector<Timestamp>* times);

// Bytes an ExpSet holds (for the memory limit).
uint64_t ExpSetBytes(const ExpSet& s);

// Evaluates program over vars (vars[i] is program.variables()[i]).
// *out gets one series per joined key with a value at every output
// timestamp; out->fill is fill. Errors: InvalidArgument "No intersections
// found: ..." and the limits' ResourceExhausted / DeadlineExceeded.
Status EvaluateExpression(const ExprProgram& program, const std::vector<const ExpSet*>& vars,
                          const ExpJoinSpec& join, double fill, const ExpEvalLimits& limits,
                          ExpSet* out);

}  // namespace sundial::query
