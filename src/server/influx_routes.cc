// InfluxDB-compatible endpoints: POST /write (1.x), POST /api/v2/write,
// GET|HEAD /ping and GET /health. Status codes and error bodies follow
// InfluxDB 1.8 (services/httpd/handler.go): 204 on success, 400 with
// {"error":"..."} for bad input, a partial write stores the good lines and
// still answers 400. db, rp, u, p, org, bucket and Authorization are
// accepted and ignored: Sundial has one namespace and no users.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "ingest_service.h"
#include "routes.h"
#include "sundial/common/json_escape.h"
#include "sundial/http/request.h"
#include "wall_clock.h"

namespace sundial::server {

namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

// The InfluxDB version Sundial answers as: the 1.x write API it implements.
constexpr char kInfluxVersion[] = "1.8.10";

// Request ids for the Request-Id header: unique per server run.
struct RequestIds {
  std::atomic<uint64_t> next{0};
  const uint64_t start_ns = static_cast<uint64_t>(
      std::chrono::system_clock::now().time_since_epoch().count());

  // A UUID-shaped id: 8-4-4-4-12 hex digits.
  std::string Next() {
    const uint64_t n = next.fetch_add(1, std::memory_order_relaxed);
    char buf[40];
    std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%012llx",
                  static_cast<unsigned>(start_ns >> 32), static_cast<unsigned>((start_ns >> 16) & 0xffff),
                  static_cast<unsigned>(start_ns & 0xffff), static_cast<unsigned>((n >> 48) & 0xffff),
                  static_cast<unsigned long long>(n & 0xffffffffffffull));
    return buf;
  }
};

// The request's id as InfluxDB 1.8 picks it (handler.go requestID): the
// client's X-Request-Id, else its Request-Id, else a new one. It goes out
// as both Request-Id and X-Request-Id; the connection writes a client's
// X-Request-ID itself and then drops the copy set here, so exactly one
// X-Request-Id header leaves either way.
Reply WithInfluxHeaders(Reply reply, const Request& req, RequestIds* ids) {
  std::string id;
  for (const std::string_view name : {http::kRequestIdHeader, std::string_view("Request-Id")}) {
    if (const std::string* v = req.headers.Find(name); v != nullptr && http::IsEchoableRequestId(*v)) {
      id = *v;
      break;
    }
  }
  if (id.empty()) id = ids->Next();
  reply.headers.emplace_back("Request-Id", id);
  reply.headers.emplace_back("X-Request-Id", id);
  reply.headers.emplace_back("X-Influxdb-Build", "OSS");
  reply.headers.emplace_back("X-Influxdb-Version", kInfluxVersion);
  return reply;
}

Reply InfluxError(int status, std::string_view message) {
  std::string body = "{\"error\":";
  AppendJsonString(message, &body);
  body += '}';
  return Reply::Json(std::move(body), status);
}

// The answer to a write whose lines were all looked at.
Reply WriteReply(const ingest::LineProtocolOutcome& out) {
  if (!out.storage_status.ok()) {
    spdlog::error("influx write: storage refused points: {}", out.storage_status.ToString());
    const int code = out.storage_status.code() == Status::Code::kUnavailable ? 503 : 500;
    return InfluxError(code, out.storage_status.ToString());
  }
  if (out.bad_lines == 0) return Reply::NoContent();
  std::string reason = out.first_error;
  if (out.bad_lines > 1) {
    reason += " (and " + std::to_string(out.bad_lines - 1) + " more bad lines)";
  }
  // Some lines stored: InfluxDB's partial-write error, still a 400.
  if (out.bad_lines < out.lines) {
    reason = "partial write: " + reason + " dropped=" + std::to_string(out.bad_lines);
  }
  return InfluxError(400, reason);
}

void HandleWrite(ServiceContext* ctx, RequestIds* ids, bool v2, const Request& req,
                 const ResponderPtr& responder) {
  ingest::Precision precision;
  if (!ingest::ParsePrecision(req.params.Get("precision"), &precision)) {
    const std::string p(req.params.Get("precision"));
    responder->Send(WithInfluxHeaders(
        InfluxError(400, "invalid precision \"" + p +
                             (v2 ? "\" (use ns, us, ms or s)" : "\" (use n, u, ms, s, m or h)")),
        req, ids));
    return;
  }
  IngestService* svc = ctx->ingest;
  if (svc == nullptr || svc->storage() == nullptr) {
    responder->Send(WithInfluxHeaders(InfluxError(503, "storage is not available"), req, ids));
    return;
  }
  svc->stats()->influx_requests.fetch_add(1, std::memory_order_relaxed);
  auto handler = svc->AcquireLineProtocolHandler();
  ingest::LineProtocolOutcome out;
  handler->HandleBody(req.body, precision, NowMs(), &out);
  svc->Release(std::move(handler));
  responder->Send(WithInfluxHeaders(WriteReply(out), req, ids));
}

}  // namespace

void RegisterInfluxRoutes(ServiceContext* ctx, http::Router* router) {
  auto ids = std::make_shared<RequestIds>();
  router->Add({Method::kPost}, "/write", [ctx, ids](Request req, ResponderPtr r) {
    HandleWrite(ctx, ids.get(), /*v2=*/false, req, r);
  });
  router->Add({Method::kPost}, "/api/v2/write", [ctx, ids](Request req, ResponderPtr r) {
    HandleWrite(ctx, ids.get(), /*v2=*/true, req, r);
  });
  router->Add({Method::kGet, Method::kHead}, "/ping", [ids](Request req, ResponderPtr r) {
    // ?verbose=true answers 200 with the version, as InfluxDB 1.8 does.
    if (req.params.Get("verbose") == "true") {
      r->Send(WithInfluxHeaders(
          Reply::Json(std::string("{\"version\":\"") + kInfluxVersion + "\"}"), req, ids.get()));
      return;
    }
    r->Send(WithInfluxHeaders(Reply::NoContent(), req, ids.get()));
  });
  router->Add({Method::kGet, Method::kHead}, "/health", [ids](Request req, ResponderPtr r) {
    r->Send(WithInfluxHeaders(
        Reply::Json(std::string("{\"checks\":[],\"message\":\"ready for queries and writes\","
                                "\"name\":\"influxdb\",\"status\":\"pass\",\"version\":\"") +
                    kInfluxVersion + "\"}"),
        req, ids.get()));
  });
}

}  // namespace sundial::server
