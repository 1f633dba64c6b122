// Query endpoints: /api/query (GET, POST), /api/query/last, /api/suggest,
// /api/search/lookup, /api/aggregators, /api/config/filters
// (opentsdb-compat.md §5, §6, §7).
//
// Every endpoint that touches storage runs on the worker pool, except a
// small /api/query (query.inline_max_points, query.inline_max_series),
// which is answered on the I/O thread that read it unless it outgrows that
// bound or kInlineMaxUs. Every endpoint applies query.* limits (README
// "Query limits"). /api/query streams its body: a result that fits in one
// 64 KiB piece is sent as one reply with Content-Length; a larger one is
// sent with chunked transfer encoding, one piece in flight at a time.
#include <memory>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <utility>

#include "query_reply.h"
#include "query_tracker.h"
#include "responder_sink.h"
#include "routes.h"
#include "worker_pool.h"
#include "sundial/common/mutex.h"
#include "sundial/query/json_limits.h"
#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"
#include "sundial/query/tag_filter.h"
#include "wall_clock.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

// Wall time a query may spend on the I/O thread before it moves to the
// worker pool (after at most this much work, redone there). Keeps other
// clients of that thread from waiting noticeably for one query.
constexpr int64_t kInlineMaxUs = 2000;

// /api/query/last sub-queries per request: each may scan every series of a
// metric (or, with tsuids, of every metric).
constexpr size_t kMaxLastQueries = 256;

// A count a client asked for (suggest max, lookup limit; <= 0 = the
// endpoint's default or unlimited), lowered to query.max_results.
int64_t CapResults(const ServiceContext* ctx, int64_t asked) {
  const uint64_t cap = ctx->options->query.max_results;
  if (cap == 0) return asked;
  const int64_t c = cap > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(cap);
  return asked <= 0 || asked > c ? c : asked;
}

Status ParseQuery(const Request& req, query::QuerySpec* spec) {
  const bool params_only = req.method == Method::kGet ||
                           (req.method == Method::kDelete && req.body.empty());
  if (params_only) return query::ParseQueryParams(req.params.items(), NowMs(), spec);
  SUNDIAL_RETURN_IF_ERROR(query::ParseQueryJson(req.body, NowMs(), spec));
  spec->arrays = req.params.Has("arrays");
  spec->ms_resolution = spec->ms_resolution || req.params.Has("ms");
  spec->show_tsuids = spec->show_tsuids || req.params.Has("show_tsuids");
  spec->show_query = spec->show_query || req.params.Has("show_query");
  spec->show_stats = spec->show_stats || req.params.Has("show_stats");
  spec->show_summary = spec->show_summary || req.params.Has("show_summary");
  return Status::OK();
}

// Runs a query on a worker thread, streaming its answer.
void RunQuery(const ServiceContext* ctx, const query::QuerySpec& spec, const ResponderPtr& resp) {
  ResponderSink sink(resp, ctx->workers);
  const query::QueryEngine engine(ctx->storage, Limits(ctx), ctx->rollups, ctx->cache,
                                  ctx->annotations, {ctx->workers, ctx->query_helpers});
  uint64_t points = 0;
  const Status s = engine.Execute(spec, &sink, &points);
  ctx->stats->AddPointsOut(PointsOut::kQuery, points);
  if (s.ok()) return sink.Finish();
  if (!sink.started()) return resp->Send(ErrorReply(s));
  // Mid-stream failure: dropping the responder unfinished ends the
  // response and closes the connection, so the client sees a truncation.
  spdlog::warn("query failed after streaming started: {}", s.ToString());
}

// /api/query on the I/O thread: parse, answer a small query at once, hand
// a bigger one to the worker pool. The small-query bound keeps the time
// spent here far below a millisecond, so ingest on this thread never waits
// for a long query (DESIGN.md §1).
void HandleQuery(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  query::QuerySpec spec;
  Status s = ParseQuery(req, &spec);
  if (!s.ok()) return resp->Send(ErrorReply(s));
  if (spec.delete_data || req.method == Method::kDelete) {
    return HandleDeleteQuery(ctx, std::move(spec), resp);
  }
  const QueryOptions& o = ctx->options->query;
  if (o.inline_max_points > 0 && o.inline_max_series > 0) {
    std::string body;
    uint64_t points = 0;
    s = query::QueryEngine(ctx->storage, Limits(ctx), ctx->rollups, ctx->cache, ctx->annotations)
            .ExecuteSmall(spec, {o.inline_max_series, o.inline_max_points, kInlineMaxUs}, &body,
                          &points);
    if (s.ok()) {
      ctx->stats->AddPointsOut(PointsOut::kQuery, points);
      return resp->Send(Reply::Json(std::move(body)));
    }
    if (s.code() != Status::Code::kBusy) return resp->Send(ErrorReply(s));
  }
  ctx->workers->Submit([ctx, spec = std::move(spec), resp] { RunQuery(ctx, spec, resp); });
}

void RunLast(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  query::LastRequest lr;
  Status s = req.method == Method::kGet ? query::ParseLastParams(req.params.items(), &lr)
                                        : query::CheckJsonBounds(req.body);
  if (s.ok() && req.method != Method::kGet) s = query::ParseLastJson(req.body, &lr);
  if (s.ok() && lr.queries.size() > kMaxLastQueries) {
    s = Status::ResourceExhausted("Sorry, /api/query/last takes at most " +
                                  std::to_string(kMaxLastQueries) + " sub-queries per request");
  }
  std::string body;
  uint64_t points = 0;
  if (s.ok()) s = query::QueryEngine(ctx->storage, Limits(ctx)).Last(lr, NowMs(), &body, &points);
  ctx->stats->AddPointsOut(PointsOut::kLast, points);
  resp->Send(s.ok() ? Reply::Json(std::move(body)) : ErrorReply(s));
}

Status ParseSuggest(const Request& req, std::string* type, std::string* q, int64_t* max) {
  using Json = nlohmann::json;
  const auto parse_max = [max](const std::string& v) {
    if (v.empty()) return Status::OK();
    char* end = nullptr;
    const long long m = std::strtoll(v.c_str(), &end, 10);
    if (end == v.c_str() || *end != '\0') {
      return Status::InvalidArgument("Unable to parse 'max' as a number");
    }
    *max = m;
    return Status::OK();
  };
  if (req.method == Method::kGet) {
    const std::string* t = req.params.Find("type");
    if (t == nullptr) return Status::InvalidArgument("Missing parameter <code>type</code>");
    *type = *t;
    *q = std::string(req.params.Get("q"));
    return parse_max(std::string(req.params.Get("max")));
  }
  if (req.body.empty()) return Status::InvalidArgument("Missing message content");
  SUNDIAL_RETURN_IF_ERROR(query::CheckJsonBounds(req.body));
  const Json j = Json::parse(req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                   query::kDetailsSeparator + "Malformed JSON in the request body");
  }
  if (!j.contains("type") || !j["type"].is_string()) {
    return Status::InvalidArgument("Missing 'type' parameter");
  }
  *type = j["type"].get<std::string>();
  if (j.contains("q") && j["q"].is_string()) *q = j["q"].get<std::string>();
  if (j.contains("max")) {
    if (j["max"].is_number_integer()) *max = j["max"].get<int64_t>();
    else if (j["max"].is_string()) return parse_max(j["max"].get<std::string>());
  }
  return Status::OK();
}

void RunSuggest(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  std::string type, q, body;
  int64_t max = 0;
  Status s = ParseSuggest(req, &type, &q, &max);
  if (s.ok()) {
    max = CapResults(ctx, max <= 0 ? 25 : max);
    s = query::QueryEngine(ctx->storage, Limits(ctx)).Suggest(type, q, max, &body);
  }
  resp->Send(s.ok() ? Reply::Json(std::move(body)) : ErrorReply(s));
}

void RunLookup(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  const std::string& rest = req.route_rest;
  if (rest != "lookup") {
    const bool known = rest == "tsmeta" || rest == "tsmeta_summary" || rest == "tsuids" ||
                       rest == "uidmeta" || rest == "annotation";
    return resp->Send(Reply::Error(400, known ? "Searching is not enabled"
                                              : "Invalid search query type supplied"));
  }
  query::LookupRequest lr;
  Status s = req.method == Method::kGet ? query::ParseLookupParams(req.params.items(), &lr)
                                        : query::CheckJsonBounds(req.body);
  if (s.ok() && req.method != Method::kGet) s = query::ParseLookupJson(req.body, &lr);
  lr.limit = CapResults(ctx, lr.limit);
  std::string body;
  if (s.ok()) s = query::QueryEngine(ctx->storage, Limits(ctx)).Lookup(lr, &body);
  resp->Send(s.ok() ? Reply::Json(std::move(body)) : ErrorReply(s));
}

}  // namespace


void RegisterQueryRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet, Method::kPost, Method::kDelete}, "/api/query",
              [ctx](Request req, ResponderPtr resp) {
                if (req.method == Method::kDelete && !ctx->options->query.allow_delete) {
                  return resp->Send(Reply::Error(
                      400, "Bad request",
                      "Deleting data is not enabled (tsd.http.query.allow_delete=false)"));
                }
                if (ctx->storage == nullptr) {
                  return resp->Send(Reply::Error(503, "Storage is not open"));
                }
                if (ctx->queries != nullptr) resp = ctx->queries->Track(req, std::move(resp));
                HandleQuery(ctx, req, resp);
              });
  router->Add({Method::kGet, Method::kPost}, "/api/query/last", OnWorkers(ctx, RunLast));
  router->Add({Method::kGet, Method::kPost}, "/api/suggest", OnWorkers(ctx, RunSuggest));
  router->Add({Method::kGet, Method::kPost}, "/api/search", OnWorkers(ctx, RunLookup));
  router->Add({Method::kGet}, "/api/aggregators", [](Request, ResponderPtr resp) {
    resp->Send(Reply::Json(query::QueryEngine::AggregatorsJson()));
  });
  // OpenTSDB's pre-/api forms: the same JSON arrays.
  router->Add({Method::kGet}, "/suggest", OnWorkers(ctx, RunSuggest));
  router->Add({Method::kGet}, "/aggregators", [](Request, ResponderPtr resp) {
    resp->Send(Reply::Json(query::QueryEngine::AggregatorsJson()));
  });
  router->Add({Method::kGet, Method::kPost}, "/api/config/filters", [](Request, ResponderPtr resp) {
    resp->Send(Reply::Json(query::FilterConfigJson()));
  });
}

}  // namespace sundial::server
