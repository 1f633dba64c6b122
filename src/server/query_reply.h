// What every query endpoint's handler shares: the query limits from
// Options and the mapping of a query/ Status to OpenTSDB's error reply
// (opentsdb-compat.md §3.6, §7): InvalidArgument 400, NotFound 404,
// ResourceExhausted 413, DeadlineExceeded 400, anything else 500 (logged).
//
// Thread-safety: pure functions.
#pragma once

#include "service_context.h"
#include "sundial/common/status.h"
#include "sundial/http/reply.h"
#include "sundial/query/query_engine.h"

namespace sundial::server {

http::Reply ErrorReply(const Status& s);

// The query.* limits of ctx's options.
query::QueryLimits Limits(const ServiceContext* ctx);

}  // namespace sundial::server
