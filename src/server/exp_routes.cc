// Expression query endpoints: POST /api/query/exp and GET /api/query/gexp
// (README "Expressions", opentsdb-compat.md §6.5). An expression query
// runs on the worker pool: it runs one query per metric and then
// evaluates every expression, under the query.* limits.
#include <string>
#include <utility>

#include "query_reply.h"
#include "routes.h"
#include "sundial/query/exp_executor.h"
#include "sundial/query/exp_request.h"
#include "sundial/query/gexp_executor.h"
#include "sundial/query/query_engine.h"
#include "wall_clock.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

void RunExp(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  const Timestamp now_ms = NowMs();
  query::ExpRequest exp;
  Status s = query::ParseExpRequest(req.body, now_ms, &exp);
  std::string body;
  if (s.ok()) {
    const query::QueryEngine engine(ctx->storage, Limits(ctx), ctx->rollups, ctx->cache);
    uint64_t points = 0;
    s = query::ExecuteExpQuery(engine, exp, &body, &points);
    ctx->stats->AddPointsOut(PointsOut::kExp, points);
  }
  resp->Send(s.ok() ? Reply::Json(std::move(body)) : ErrorReply(s));
}

void RunGexp(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  query::GexpRequest gexp;
  Status s = query::ParseGexpRequest(req.params.items(), NowMs(), &gexp);
  std::string body;
  if (s.ok()) {
    const query::QueryEngine engine(ctx->storage, Limits(ctx), ctx->rollups, ctx->cache);
    uint64_t points = 0;
    s = query::ExecuteGexpQuery(engine, gexp, &body, &points);
    ctx->stats->AddPointsOut(PointsOut::kGexp, points);
  }
  resp->Send(s.ok() ? Reply::Json(std::move(body)) : ErrorReply(s));
}

}  // namespace

void RegisterExpRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kPost}, "/api/query/exp", OnWorkers(ctx, RunExp));
  router->Add({Method::kGet}, "/api/query/gexp", OnWorkers(ctx, RunGexp));
}

}  // namespace sundial::server
