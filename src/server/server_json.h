// Helpers shared by the metadata endpoints (annotation_routes.cc,
// uid_routes.cc, stats_routes.cc, relay_routes.cc): Status to OpenTSDB error
// replies, JSON text that cannot throw, and running a handler on the worker
// pool.
//
// Thread-safety: pure functions; handlers run on worker threads.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json_fwd.hpp>

#include "service_context.h"
#include "sundial/common/status.h"
#include "sundial/http/reply.h"
#include "sundial/http/request.h"
#include "sundial/http/responder.h"
#include "sundial/query/query_spec.h"
#include "worker_pool.h"

namespace sundial::server {

// OpenTSDB's error document with HTTP `code` for s: a message holding
// query::kDetailsSeparator is split into message and details. A code of
// 500 or more is logged as "<what> failed: <status>".
http::Reply CodedErrorReply(int code, const Status& s, const char* what);

// OpenTSDB's error document for a Status: InvalidArgument 400, NotFound
// 404, Unavailable 503, anything else 500. A message holding
// query::kDetailsSeparator is split into message and details.
http::Reply StatusReply(const Status& s);

// 400 "Unable to parse the given JSON" as OpenTSDB's serializer says it.
Status BadJson();

// The compact text of j. Bytes that are not UTF-8 become U+FFFD instead of
// throwing: names may hold them (ingest takes such bytes as Latin-1, as
// OpenTSDB does), and so may percent-decoded query-string values, and an
// exception on a worker thread would end the process.
std::string DumpJson(const nlohmann::json& j);

// A handler that runs fn(ctx, request, responder) on the worker pool, or
// answers 503 while the metadata store is not open.
template <typename Fn>
http::Handler OnMetaWorkers(ServiceContext* ctx, Fn fn) {
  return [ctx, fn](http::Request req, http::ResponderPtr resp) {
    if (ctx->storage == nullptr || ctx->annotations == nullptr || ctx->meta == nullptr) {
      return resp->Send(http::Reply::Error(503, "Storage is not open"));
    }
    ctx->workers->Submit([ctx, fn, req = std::move(req), resp = std::move(resp)]() {
      fn(ctx, req, resp);
    });
  };
}

}  // namespace sundial::server
