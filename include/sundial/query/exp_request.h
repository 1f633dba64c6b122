// ExpRequest: a parsed and validated POST /api/query/exp body, OpenTSDB
// 2.3+'s expression query (src/query/pojo/*.java in OpenTSDB):
//
//   {"time": {"start": "1h-ago", "end": "now", "timezone": "UTC",
//             "aggregator": "sum", "rate": false,
//             "downsampler": {"interval": "1m", "aggregator": "avg",
//                             "fillPolicy": {"policy": "nan"}}},
//    "filters": [{"id": "f1", "explicitTags": false, "tags": [
//                 {"type": "wildcard", "tagk": "host", "filter": "*",
//                  "groupBy": true}]}],
//    "metrics": [{"id": "a", "metric": "sys.cpu.user", "filter": "f1",
//                 "aggregator": "sum", "fillPolicy": {"policy": "zero"},
//                 "timeOffset": "1d-ago"}],
//    "expressions": [{"id": "e", "expr": "a + b",
//                     "join": {"operator": "intersection",
//                              "useQueryTags": false, "includeAggTags": true},
//                     "fillPolicy": {"policy": "scalar", "value": 1}}],
//    "outputs": [{"id": "e", "alias": "A plus B"}]}
//
// Parsing is Jackson's: unknown keys are ignored, numbers and booleans are
// accepted as strings and the other way round; a value of the wrong shape is
// "Unable to parse the given JSON". Validation is the pojos' validate(),
// with their messages, prefixed the way Validatable nests them
// ("Invalid metric at index 0: missing or empty id"). Past OpenTSDB, the
// expressions are parsed (exp_expr.h) and ordered so that each comes after
// the expressions it uses; a cycle is an error.
//
// Every error is InvalidArgument (HTTP 400).
//
// Thread-safety: plain data; the parser is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/exp_expr.h"
#include "sundial/query/query_spec.h"
#include "sundial/query/tag_filter.h"
#include "sundial/query/time_zone.h"

namespace sundial::query {

// Largest request body: a few KB in practice.
inline constexpr size_t kMaxExpRequestBytes = 256 * 1024;
// Most metrics, filters, expressions and outputs of one request (each).
inline constexpr size_t kMaxExpItems = 256;

// NumericFillPolicy: how a variable without a value at a timestamp is
// filled. After validation, value is the number used (NaN for none, nan
// and null).
struct ExpFill {
  FillPolicy policy = FillPolicy::kZero;
  double value = 0;
};

struct ExpDownsampler {
  std::string interval;
  std::string aggregator;
  bool has_fill = false;
  ExpFill fill;
};

struct ExpTime {
  bool has_start = false, has_end = false, has_timezone = false, has_aggregator = false;
  std::string start, end, timezone, aggregator;
  bool has_downsampler = false;
  ExpDownsampler downsampler;
  bool rate = false;
};

struct ExpFilterSet {
  bool has_id = false;
  std::string id;
  bool has_tags = false;
  std::vector<TagFilter> tags;
  bool explicit_tags = false;
};

struct ExpMetric {
  bool has_id = false, has_metric = false, has_filter = false, has_aggregator = false,
       has_time_offset = false, has_fill = false;
  std::string id, metric, filter, aggregator, time_offset;
  ExpFill fill;
};

struct ExpJoin {
  bool has_operator = false;
  bool intersection = false;  // else union
  bool use_query_tags = false;
  bool include_agg_tags = true;
};

struct ExpExpression {
  bool has_id = false, has_expr = false, has_join = false, has_fill = false;
  std::string id, expr;
  ExpJoin join;  // union when absent
  ExpFill fill{FillPolicy::kNaN, 0};  // used when has_fill; else NaN
  ExprProgram program;  // parsed by validation
};

struct ExpOutput {
  bool has_id = false, has_alias = false;
  std::string id, alias;
};

struct ExpRequest {
  bool has_name = false;
  std::string name;
  bool has_time = false;
  ExpTime time;
  bool has_filters = false;
  std::vector<ExpFilterSet> filters;
  bool has_metrics = false;
  std::vector<ExpMetric> metrics;
  bool has_expressions = false;
  std::vector<ExpExpression> expressions;
  bool has_outputs = false;
  std::vector<ExpOutput> outputs;

  // Filled by validation.
  Timestamp start_ms = 0;
  Timestamp end_ms = 0;
  TimeZone tz;
  // Indices into expressions, each after every expression it uses.
  std::vector<size_t> eval_order;
};

// Parses and validates body. now_ms resolves relative times.
Status ParseExpRequest(std::string_view body, Timestamp now_ms, ExpRequest* out);

// Query.validateId: letters and digits only, and not a single digit.
Status ValidateExpId(const std::string& id);

// Appends the "query" echo of the response: the request as OpenTSDB's
// Jackson writes the Query pojo back (absent strings are null).
void AppendExpRequestJson(const ExpRequest& req, std::string* out);

}  // namespace sundial::query
