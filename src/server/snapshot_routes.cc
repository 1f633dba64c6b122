// Online snapshots (README "Backup and restore"): POST /api/snapshot takes
// one (Storage::Snapshot, with the meta store's meta.log) while ingest goes on, GET /api/snapshot lists
// them, DELETE /api/snapshot/<name> removes one. All run on the worker
// pool: a snapshot copies files.
#include <spdlog/spdlog.h>

#include <string>
#include <utility>
#include <vector>

#include "routes.h"
#include "sundial/common/json_escape.h"
#include "worker_pool.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

Reply SnapshotError(const Status& s) {
  const std::string what = s.ToString();
  int code = 500;
  if (s.code() == Status::Code::kInvalidArgument) code = 400;
  if (s.code() == Status::Code::kNotFound) code = 404;
  if (s.code() == Status::Code::kBusy) code = 409;
  if (s.code() == Status::Code::kResourceExhausted) code = 409;  // storage.max_snapshots
  if (what.find("No space left") != std::string::npos) code = 507;
  if (code >= 500) spdlog::warn("snapshot failed: {}", what);
  return Reply::Error(code, code == 507 ? "Not enough disk space for the snapshot" : s.message(),
                      what);
}

void AppendField(const char* key, const std::string& value, std::string* out) {
  out->append("\"").append(key).append("\":");
  AppendJsonString(value, out);
}

void TakeSnapshot(ServiceContext* ctx, const ResponderPtr& resp) {
  storage::SnapshotInfo info;
  // Annotations and UID/TS meta live in meta.log, which the meta store owns.
  std::vector<storage::SnapshotSource*> sources;
  if (ctx->meta != nullptr) {
    sources.push_back(ctx->meta);
  } else {
    spdlog::warn("snapshot without meta.log: the meta store is not open (see the start-up log)");
  }
  const Status s = ctx->storage->Snapshot("", sources, &info);
  if (!s.ok()) return resp->Send(SnapshotError(s));
  spdlog::info("snapshot {}: {} bytes, {} files linked, {} copied ({} bytes), appends paused {} us",
               info.name, info.bytes, info.files_linked, info.files_copied, info.bytes_copied,
               info.pause_us);
  std::string body = "{";
  AppendField("name", info.name, &body);
  body += ",";
  AppendField("path", info.path, &body);
  body += ",\"created\":" + std::to_string(info.created_ms) +
          ",\"bytes\":" + std::to_string(info.bytes) +
          ",\"filesLinked\":" + std::to_string(info.files_linked) +
          ",\"filesCopied\":" + std::to_string(info.files_copied) +
          ",\"bytesCopied\":" + std::to_string(info.bytes_copied) +
          ",\"pauseMicros\":" + std::to_string(info.pause_us) + "}";
  resp->Send(Reply::Json(std::move(body)));
}

void ListSnapshots(ServiceContext* ctx, const ResponderPtr& resp) {
  std::string body = "[";
  for (const storage::SnapshotInfo& info : ctx->storage->ListSnapshots()) {
    if (body.size() > 1) body += ",";
    body += "{";
    AppendField("name", info.name, &body);
    body += ",";
    AppendField("path", info.path, &body);
    body += ",\"created\":" + std::to_string(info.created_ms) +
            ",\"bytes\":" + std::to_string(info.bytes) + "}";
  }
  body += "]";
  resp->Send(Reply::Json(std::move(body)));
}

void RemoveSnapshot(ServiceContext* ctx, const std::string& name, const ResponderPtr& resp) {
  const Status s = ctx->storage->RemoveSnapshot(name);
  if (!s.ok()) return resp->Send(SnapshotError(s));
  spdlog::info("snapshot {} removed", name);
  std::string body = "{";
  AppendField("deleted", name, &body);
  body += "}";
  resp->Send(Reply::Json(std::move(body)));
}

}  // namespace

void RegisterSnapshotRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet, Method::kPost, Method::kDelete}, "/api/snapshot",
              [ctx](Request req, ResponderPtr resp) {
                if (ctx->storage == nullptr) {
                  return resp->Send(Reply::Error(503, "Storage is not open"));
                }
                const std::string name = req.route_rest;
                if (req.method == Method::kDelete) {
                  if (name.empty()) {
                    return resp->Send(Reply::Error(400, "Missing the snapshot name",
                                                   "DELETE /api/snapshot/<name>"));
                  }
                  if (name.find('/') != std::string::npos ||
                      name.find("..") != std::string::npos) {
                    return resp->Send(Reply::Error(400, "Invalid snapshot name", name));
                  }
                } else if (!name.empty()) {
                  return resp->Send(Reply::EndpointNotFound());
                }
                ctx->workers->Submit([ctx, method = req.method, name, resp = std::move(resp)] {
                  if (method == Method::kPost) return TakeSnapshot(ctx, resp);
                  if (method == Method::kGet) return ListSnapshots(ctx, resp);
                  RemoveSnapshot(ctx, name, resp);
                });
              });
}

}  // namespace sundial::server
