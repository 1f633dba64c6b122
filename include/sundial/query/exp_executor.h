// ExecuteExpQuery: runs a validated /api/query/exp request (exp_request.h)
// and writes OpenTSDB's response (QueryExecutor.serialize):
//
//   {"outputs":[{"id":"e","alias":"..","dps":[[<ms>,v1,v2,..],..],
//                "dpsMeta":{"firstTimestamp":..,"lastTimestamp":..,
//                           "setCount":<rows>,"series":<n>},
//                "meta":[{"index":0,"metrics":["timestamp"]},
//                        {"index":1,"metrics":[..],"commonTags":{..},
//                         "aggregatedTags":[..]},..]}],
//    "query":{<the request echoed>}}
//
// Each metric runs as one /api/query sub-query (QueryEngine::Collect) with
// the time range, the timespan's downsampler (interval-aggregator and its
// fill policy), rate, the metric's filter set and its aggregator (else the
// timespan's). Expressions are then evaluated in dependency order
// (exp_eval.h). Outputs default to every expression, or every metric when
// there are none; an output naming neither is skipped.
//
// Expression outputs keep rows within [start, end]; metric outputs list
// every row with the metric's fill value where a group has no point.
// OpenTSDB's quirks are kept: timestamps in ms, "lastTimestamp" is 0 when
// only one row is written, "metrics" of every meta entry are those of the
// first series, "meta" is left out when there is no series.
//
// Limits: query.max_series, query.max_points, query.max_output_points,
// query.max_memory and query.deadline hold for the whole request (every
// metric query and every expression together); query.max_output_bytes
// bounds the response.
//
// Thread-safety: a pure function of its arguments; runs on a query thread.
#pragma once

#include <cstdint>
#include <string>

#include "sundial/common/status.h"
#include "sundial/query/exp_request.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {

// Errors: the engine's (unknown names 400, limits 413, deadline 400) and
// the evaluation's (exp_eval.h). On error *json is unspecified. *points
// (may be null) receives the number of values in the outputs' "dps" rows
// (timestamps not counted; 0 on error).
Status ExecuteExpQuery(const QueryEngine& engine, const ExpRequest& req, std::string* json,
                       uint64_t* points = nullptr);

}  // namespace sundial::query
