// Expression query endpoints: POST /api/query/exp (README "Expressions",
// opentsdb-compat.md §6.5) and /api/query/gexp (not implemented: 501).
// An expression query runs on the worker pool: it runs one query per
// metric and then evaluates every expression, under the query.* limits.
#include <chrono>
#include <string>
#include <utility>

#include "query_reply.h"
#include "routes.h"
#include "sundial/query/exp_executor.h"
#include "sundial/query/exp_request.h"
#include "sundial/query/query_engine.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

void RunExp(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  const Timestamp now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  query::ExpRequest exp;
  Status s = query::ParseExpRequest(req.body, now_ms, &exp);
  std::string body;
  if (s.ok()) {
    const query::QueryEngine engine(ctx->storage, Limits(ctx), ctx->rollups, ctx->cache);
    s = query::ExecuteExpQuery(engine, exp, &body);
  }
  resp->Send(s.ok() ? Reply::Json(std::move(body)) : ErrorReply(s));
}

}  // namespace

void RegisterExpRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kPost}, "/api/query/exp", [ctx](Request req, ResponderPtr resp) {
    if (ctx->storage == nullptr) return resp->Send(Reply::Error(503, "Storage is not open"));
    ctx->workers->Submit([ctx, req = std::move(req), resp = std::move(resp)]() {
      RunExp(ctx, req, resp);
    });
  });
  router->Add({Method::kGet, Method::kPost}, "/api/query/gexp", [](Request, ResponderPtr resp) {
    resp->Send(Reply::Error(501, "Graphite-style expression queries are not implemented",
                            "Use POST /api/query/exp (README: Expressions)"));
  });
}

}  // namespace sundial::server
