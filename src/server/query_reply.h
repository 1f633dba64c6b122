// What every query endpoint's handler shares: the query limits from
// Options, dispatch to the worker pool, and the mapping of a query/ Status
// to OpenTSDB's error reply (opentsdb-compat.md §3.6, §7): InvalidArgument
// 400, NotFound 404, ResourceExhausted 413, DeadlineExceeded 400, anything
// else 500 (logged).
//
// Thread-safety: pure functions; OnWorkers handlers run on worker threads.
#pragma once

#include <utility>

#include "service_context.h"
#include "sundial/common/status.h"
#include "sundial/http/reply.h"
#include "sundial/http/request.h"
#include "sundial/http/responder.h"
#include "sundial/http/router.h"
#include "sundial/query/query_engine.h"
#include "worker_pool.h"

namespace sundial::server {

http::Reply ErrorReply(const Status& s);

// The query.* limits of ctx's options.
query::QueryLimits Limits(const ServiceContext* ctx);

// A handler that runs fn(ctx, request, responder) on the worker pool, or
// answers 503 while storage is not open.
template <typename Fn>
http::Handler OnWorkers(ServiceContext* ctx, Fn fn) {
  return [ctx, fn](http::Request req, http::ResponderPtr resp) {
    if (ctx->storage == nullptr) {
      return resp->Send(http::Reply::Error(503, "Storage is not open"));
    }
    ctx->workers->Submit([ctx, fn, req = std::move(req), resp = std::move(resp)]() {
      fn(ctx, req, resp);
    });
  };
}

}  // namespace sundial::server
