// POST /api/v1/write (and its alias /api/v1/push): Prometheus remote_write
// 1.0. Answers 204 once every accepted sample is in the WAL; 400 with a
// text body for a body that is not a valid WriteRequest (see
// remote_write_handler.h), 413 when it decompresses to more than
// http.max_body_size, 415 for a Content-Encoding other than snappy or a
// remote_write 2.0 body, and 500/503/507 when storage refuses, as /api/put.
#include <string>

#include <spdlog/spdlog.h>

#include "remote_write_service.h"
#include "routes.h"
#include "sundial/http/body_codec.h"

namespace sundial::server {

RemoteWriteService::RemoteWriteService(IngestService* ingest)
    : ingest_(ingest) {}

std::unique_ptr<ingest::RemoteWriteHandler> RemoteWriteService::Acquire() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      auto h = std::move(idle_.back());
      idle_.pop_back();
      return h;
    }
  }
  return std::make_unique<ingest::RemoteWriteHandler>(ingest_->storage(), &ingest_->options(),
                                                      &ingest_->rules(), ingest_->stats());
}

void RemoteWriteService::Release(std::unique_ptr<ingest::RemoteWriteHandler> handler) {
  MutexLock lock(&mu_);
  idle_.push_back(std::move(handler));
}

namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

Reply Text(int status, std::string body) {
  Reply r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  r.body.push_back('\n');
  return r;
}

// The answer when storage refused: as /api/put, 503 while storage is
// read-only or stopped (Prometheus retries), 507 when the disk is full,
// 500 otherwise.
Reply StorageErrorReply(const Status& s) {
  const std::string what = s.ToString();
  const int code = s.code() == Status::Code::kUnavailable         ? 503
                   : what.find("No space left") != std::string::npos ? 507
                                                                     : 500;
  return Text(code, "storage error: " + what);
}

void HandleRemoteWrite(ServiceContext* ctx, const Request& req, const ResponderPtr& responder) {
  RemoteWriteService* svc = ctx->remote_write;
  if (svc == nullptr || ctx->ingest == nullptr || ctx->ingest->storage() == nullptr) {
    responder->Send(Text(503, "storage is not available"));
    return;
  }
  const std::string_view encoding = req.headers.Get("Content-Encoding");
  if (http::ParseContentCoding(encoding) != http::ContentCoding::kSnappy && !encoding.empty()) {
    responder->Send(Text(415, "remote_write bodies must be snappy-compressed "
                              "(Content-Encoding: snappy), not " + std::string(encoding)));
    return;
  }
  if (req.headers.Get("Content-Type").find("io.prometheus.write.v2") != std::string_view::npos) {
    responder->Send(Text(415, "remote_write 2.0 is not supported; send 1.0 "
                              "(prometheus.WriteRequest)"));
    return;
  }
  auto handler = svc->Acquire();
  ingest::RemoteWriteOutcome out;
  handler->Handle(req.body, ctx->options->http.limits.max_body_bytes, &out);
  svc->Release(std::move(handler));
  if (out.request_status.IsResourceExhausted()) {
    responder->Send(Text(413, "request body too large: " + out.request_status.message()));
  } else if (!out.storage_status.ok()) {  // 5xx: Prometheus retries the batch
    spdlog::error("/api/v1/write: storage refused {} samples: {}", out.samples,
                  out.storage_status.ToString());
    responder->Send(StorageErrorReply(out.storage_status));
  } else if (!out.request_status.ok()) {
    std::string text = "bad remote_write body: " + out.request_status.message();
    if (out.stored > 0) {
      text += "; the other series were stored (" + std::to_string(out.stored) + " samples)";
    }
    responder->Send(Text(400, text));
  } else {
    responder->Send(Reply::NoContent());
  }
}

}  // namespace

void RegisterRemoteWriteRoutes(ServiceContext* ctx, http::Router* router) {
  // Literal version segments: the paths Prometheus clients use.
  for (const char* path : {"/api/v1/write", "/api/v1/push"}) {
    router->Add({Method::kPost}, path, [ctx](Request req, ResponderPtr r) {
      HandleRemoteWrite(ctx, req, r);
    });
  }
}

}  // namespace sundial::server
