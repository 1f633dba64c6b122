// Ingest endpoints: POST /api/put (opentsdb-compat.md §4), GET|POST
// /api/stats (§6.3) and GET /metrics (Prometheus text format).
#include <chrono>
#include <cstdlib>
#include <string>

#include <spdlog/spdlog.h>

#include "ingest_service.h"
#include "routes.h"
#include "stats_report.h"

namespace sundial::server {

namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

constexpr std::string_view kSeeDetails =
    "Please see the TSD logs or append \"details\" to the put request";

struct PutMode {
  bool summary = false;
  bool details = false;
  bool sync = false;
  long sync_timeout_ms = 0;
};

// The answer to a put whose points were all handled (§4.4). timeouts is the
// number of stored points whose sync did not finish within sync_timeout.
Reply PutReply(const ingest::HttpPutOutcome& out, const PutMode& mode, size_t timeouts) {
  const size_t failures = out.failed;
  if (timeouts > 0) {
    if (!mode.summary && !mode.details) {
      return Reply::Error(400, "The put call has timedout with 0 successful writes, 0 failed "
                               "writes and " + std::to_string(timeouts) + " timed out writes.",
                          kSeeDetails);
    }
    std::string body = "{\"success\":0,\"failed\":" + std::to_string(failures) +
                       ",\"timeouts\":" + std::to_string(timeouts);
    if (mode.details) body += ",\"errors\":[" + out.errors_json + "]";
    return Reply::Json(body + "}", 400);
  }
  if (!mode.summary && !mode.details) {
    if (failures == 0) return Reply::NoContent();
    return Reply::Error(400, "One or more data points had errors", kSeeDetails);
  }
  std::string body = "{\"success\":" + std::to_string(out.success) +
                     ",\"failed\":" + std::to_string(failures);
  if (mode.sync_timeout_ms > 0) body += ",\"timeouts\":0";
  if (mode.details) body += ",\"errors\":[" + out.errors_json + "]";
  return Reply::Json(body + "}", failures == 0 ? 200 : 400);
}

void HandlePut(ServiceContext* ctx, Request req, const ResponderPtr& responder) {
  IngestService* svc = ctx->ingest;
  if (svc == nullptr || svc->storage() == nullptr) {
    responder->Send(Reply::Error(503, "Storage is not available"));
    return;
  }
  PutMode mode;
  mode.summary = req.params.Has("summary");
  mode.details = req.params.Has("details");
  mode.sync = req.params.Has("sync");
  if (const std::string* t = req.params.Find("sync_timeout")) {
    char* end = nullptr;
    mode.sync_timeout_ms = std::strtol(t->c_str(), &end, 10);
    if (t->empty() || *end != '\0') {  // Java's Integer.parseInt throws: a 500
      responder->Send(Reply::Error(500, "For input string: \"" + *t + "\""));
      return;
    }
  }
  auto handler = svc->AcquireHttpHandler();
  auto out = std::make_shared<ingest::HttpPutOutcome>();
  handler->Handle(req.body, mode.details, out.get());
  svc->Release(std::move(handler));
  if (out->request_error) {
    responder->Send(Reply::Error(400, out->message, out->details));
    return;
  }
  // Storage refused the points: nothing was acknowledged. Not a 400, so
  // that clients such as tcollector keep the batch and retry.
  if (!out->storage_status.ok()) {
    spdlog::error("/api/put: storage refused {} points: {}", out->points - out->failed,
                  out->storage_status.ToString());
    // Read-only (disk full) or stopped writes: 503, so that clients retry
    // later; a full disk met by this very write: 507.
    const std::string what = out->storage_status.ToString();
    const int code = out->storage_status.code() == Status::Code::kUnavailable ? 503
                     : what.find("No space left") != std::string::npos   ? 507
                                                                         : 500;
    responder->Send(Reply::Error(code, "Storage exception: " + what));
    return;
  }
  if (!mode.sync || out->success == 0) {
    responder->Send(PutReply(*out, mode, 0));
    return;
  }
  // fsync off the I/O thread; answer once it is done.
  storage::Storage* storage = svc->storage();
  ctx->workers->Submit([storage, out, mode, responder] {
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = storage->Sync();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
    if (!s.ok()) {
      spdlog::error("/api/put?sync: {}", s.ToString());
      responder->Send(Reply::Error(500, "Storage exception: " + s.ToString()));
      return;
    }
    const bool late = mode.sync_timeout_ms > 0 && ms > mode.sync_timeout_ms;
    responder->Send(PutReply(*out, mode, late ? out->success : 0));
  });
}

int64_t NowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

void RegisterIngestRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kPost}, "/api/put", [ctx](Request req, ResponderPtr r) {
    HandlePut(ctx, std::move(req), r);
  });
  const std::string host = LocalHostName();
  router->Add({Method::kGet, Method::kPost}, "/api/stats", [ctx, host](Request, ResponderPtr r) {
    r->Send(Reply::Json(StatsJson(CollectStats(*ctx), NowSeconds(), host)));
  });
  // OpenTSDB's pre-/api /stats: the telnet `stats` lines, or /api/stats's
  // JSON with ?json.
  router->Add({Method::kGet}, "/stats", [ctx, host](Request req, ResponderPtr r) {
    if (req.params.Has("json")) {
      return r->Send(Reply::Json(StatsJson(CollectStats(*ctx), NowSeconds(), host)));
    }
    Reply reply;
    reply.content_type = "text/plain; charset=utf-8";
    reply.body = StatsTelnet(CollectStats(*ctx), NowSeconds(), host);
    r->Send(std::move(reply));
  });
  router->Add({Method::kGet}, "/metrics", [ctx](Request, ResponderPtr r) {
    Reply reply;
    reply.content_type = "text/plain; version=0.0.4; charset=utf-8";
    reply.body = StatsPrometheus(CollectStats(*ctx));
    r->Send(std::move(reply));
  });
}

}  // namespace sundial::server
