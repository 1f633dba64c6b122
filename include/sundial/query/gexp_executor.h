// GET /api/query/gexp (OpenTSDB 2.3+, QueryRpc with expressions): one or
// more Graphite-style expressions (gexp_parser.h) over m-style metric
// queries, answered in /api/query's shape:
//
//   GET /api/query/gexp?start=1h-ago&exp=scale(sum:if.bytes_in{host=*},,8)
//   [{"metric":"if.bytes_in","tags":{"host":"web01"},"aggregateTags":[],
//     "dps":{"1700000000":8.0,...}},...]
//
// Parameters: exp (required, repeatable; results in the order given),
// start, end, tz/timezone and ms as for GET /api/query; other /api/query
// parameters are accepted and ignored. Each metric query of an expression
// runs as one /api/query sub-query (QueryEngine::Collect); the functions
// then run bottom-up (gexp_eval.h). Only points within [start, end] are
// written; timestamps are seconds (integer division) unless ms is given.
// Values are doubles in Java's Double.toString form, NaN as "NaN".
//
// Limits: at most kMaxGexpExpressions expressions and kMaxGexpMetrics
// metric queries per request; query.max_series, max_points,
// max_output_points, max_memory and deadline hold for the whole request
// (exp_budget.h), query.max_output_bytes bounds the response.
//
// Errors: InvalidArgument (400) for a bad parameter, expression or
// function argument; the engine's errors otherwise (exp_executor.h).
//
// Thread-safety: pure functions; Execute runs on a query thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/gexp_parser.h"
#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"
#include "sundial/query/time_zone.h"

namespace sundial::query {

inline constexpr size_t kMaxGexpExpressions = 32;
inline constexpr size_t kMaxGexpMetrics = 256;

struct GexpRequest {
  std::vector<GexpNode> expressions;  // parsed, in request order
  Timestamp start_ms = 0;
  Timestamp end_ms = 0;
  TimeZone tz;
  bool ms_resolution = false;
};

// Parses the query string. now_ms resolves relative times.
Status ParseGexpRequest(const ParamList& params, Timestamp now_ms, GexpRequest* out);

// Runs req and writes the JSON array into *json (unspecified on error).
// *points (may be null) receives the number of "dps" entries written (0 on
// error).
Status ExecuteGexpQuery(const QueryEngine& engine, const GexpRequest& req, std::string* json,
                        uint64_t* points = nullptr);

}  // namespace sundial::query
