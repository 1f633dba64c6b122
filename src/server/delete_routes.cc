// Deleting data (README "Deleting data"): /api/query with the "delete"
// flag answers the query and then removes the points it matched in its
// time range; DELETE /api/series removes whole series (or their points in
// a range) and hides the series left without points from lookups. Both
// are refused with 400 unless query.allow_delete is on. Storage does the
// removal (Storage::DeleteRange): durable, crash-safe, and applied to
// memory, page files, cold files; rollups and the bucket cache hear of it.
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include <string>
#include <utility>
#include <vector>

#include "query_reply.h"
#include "routes.h"
#include "sundial/common/json_escape.h"
#include "sundial/query/json_limits.h"
#include "worker_pool.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

Reply NotEnabled() {
  return Reply::Error(400, "Bad request",
                      "Deleting data is not enabled (tsd.http.query.allow_delete=false)");
}

// A failed Storage::DeleteRange: read-only or stopped storage is 503 (try
// later), a full disk 507, anything else 500.
Reply DeleteFailed(const Status& s) {
  spdlog::warn("delete failed: {}", s.ToString());
  const std::string what = s.ToString();
  int code = 500;
  if (s.code() == Status::Code::kUnavailable) code = 503;
  if (what.find("No space left") != std::string::npos) code = 507;
  if (s.code() == Status::Code::kInvalidArgument) code = 400;
  return Reply::Error(code, "Unable to delete the data", what);
}

// Collects a query's whole answer: a delete answers with the data as it
// was, so the answer is complete before anything is removed.
class StringSink final : public query::ChunkSink {
 public:
  bool Write(std::string&& chunk) override {
    body_ += chunk;
    return true;
  }
  std::string& body() { return body_; }

 private:
  std::string body_;
};

void RunDeleteQuery(ServiceContext* ctx, const query::QuerySpec& spec, const ResponderPtr& resp) {
  const query::QueryEngine engine(ctx->storage, Limits(ctx), ctx->rollups, ctx->cache);
  std::vector<SeriesId> ids;
  Status s = engine.MatchSeries(spec, &ids);
  StringSink sink;
  uint64_t points = 0;
  if (s.ok()) s = engine.Execute(spec, &sink, &points);
  if (!s.ok()) return resp->Send(ErrorReply(s));
  ctx->stats->AddPointsOut(PointsOut::kQuery, points);  // the answer lists them
  s = ctx->storage->DeleteRange(ids, spec.start_ms, spec.end_ms, false, nullptr);
  if (!s.ok()) return resp->Send(DeleteFailed(s));
  spdlog::info("deleted the points of {} series in [{}, {}] (/api/query)", ids.size(),
               spec.start_ms, spec.end_ms);
  resp->Send(Reply::Json(std::move(sink.body())));
}

// DELETE /api/series as an /api/query request with one sub-query (the
// aggregator is irrelevant): query string metric=<m>[{filters}], start,
// end; or a JSON body {"metric", "tags", "filters", "start", "end"}.
// Without start the range begins at the earliest time, without end it
// reaches the latest.
Status ParseSeriesDelete(const Request& req, query::QuerySpec* spec) {
  using Json = nlohmann::json;
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  bool has_start = false, has_end = false;
  if (req.body.empty()) {
    const std::string* metric = req.params.Find("metric");
    if (metric == nullptr || metric->empty()) {
      return Status::InvalidArgument("Missing parameter <code>metric</code>");
    }
    const std::string* start = req.params.Find("start");
    const std::string* end = req.params.Find("end");
    has_start = start != nullptr && !start->empty();
    has_end = end != nullptr && !end->empty();
    query::ParamList params = {{"start", has_start ? *start : "1"},
                               {"m", "none:" + *metric}};
    if (has_end) params.emplace_back("end", *end);
    SUNDIAL_RETURN_IF_ERROR(query::ParseQueryParams(params, now, spec));
  } else {
    SUNDIAL_RETURN_IF_ERROR(query::CheckJsonBounds(req.body));
    Json j = Json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return Status::InvalidArgument("Unable to parse the given JSON");
    }
    if (!j.contains("metric") || !j["metric"].is_string()) {
      return Status::InvalidArgument("Missing 'metric' field");
    }
    Json sub = {{"aggregator", "none"}, {"metric", j["metric"]}};
    for (const char* k : {"tags", "filters"}) {
      if (j.contains(k)) sub[k] = j[k];
    }
    Json q = {{"start", 1}, {"queries", Json::array({sub})}};
    has_start = j.contains("start") && !j["start"].is_null();
    has_end = j.contains("end") && !j["end"].is_null();
    if (has_start) q["start"] = j["start"];
    if (has_end) q["end"] = j["end"];
    SUNDIAL_RETURN_IF_ERROR(query::ParseQueryJson(q.dump(), now, spec));
  }
  if (!has_start) spec->start_ms = kMinTimestamp + 1;
  if (!has_end) spec->end_ms = kMaxTimestamp - 1;
  return Status::OK();
}

void RunSeriesDelete(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  query::QuerySpec spec;
  Status s = ParseSeriesDelete(req, &spec);
  std::vector<SeriesId> ids;
  if (s.ok()) s = query::QueryEngine(ctx->storage, Limits(ctx)).MatchSeries(spec, &ids);
  if (!s.ok()) return resp->Send(ErrorReply(s));
  size_t hidden = 0;
  s = ctx->storage->DeleteRange(ids, spec.start_ms, spec.end_ms, true, &hidden);
  if (!s.ok()) return resp->Send(DeleteFailed(s));
  spdlog::info("deleted {} series ({} left without points) (/api/series)", ids.size(), hidden);
  resp->Send(Reply::Json("{\"series\":" + std::to_string(ids.size()) +
                         ",\"removed\":" + std::to_string(hidden) + "}"));
}

}  // namespace

void HandleDeleteQuery(ServiceContext* ctx, query::QuerySpec spec, const ResponderPtr& resp) {
  if (!ctx->options->query.allow_delete) return resp->Send(NotEnabled());
  ctx->workers->Submit(
      [ctx, spec = std::move(spec), resp] { RunDeleteQuery(ctx, spec, resp); });
}

void RegisterDeleteRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kDelete}, "/api/series", [ctx](Request req, ResponderPtr resp) {
    if (!ctx->options->query.allow_delete) return resp->Send(NotEnabled());
    if (ctx->storage == nullptr) return resp->Send(Reply::Error(503, "Storage is not open"));
    ctx->workers->Submit([ctx, req = std::move(req), resp = std::move(resp)] {
      RunSeriesDelete(ctx, req, resp);
    });
  });
}

}  // namespace sundial::server
