// /api/export (GET, POST): streams raw points as put lines, JSON lines or
// CSV (query/export.h, README "Import and export").
//
// Runs on the worker pool and streams through a ResponderSink: one 64 KiB
// piece in flight at a time, so the server's memory does not grow with the
// size of an export. query.max_series bounds the selected series; the
// point, output and deadline limits of /api/query do not apply (an export
// is meant to be big). A client that stops reading for a minute is dropped.
#include <chrono>

#include <spdlog/spdlog.h>

#include "query_reply.h"
#include "responder_sink.h"
#include "routes.h"
#include "sundial/query/export.h"
#include "sundial/query/json_limits.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

const char* ContentType(query::ExportFormat f) {
  switch (f) {
    case query::ExportFormat::kPut: return "text/plain; charset=utf-8";
    case query::ExportFormat::kJson: return "application/x-ndjson";
    case query::ExportFormat::kCsv: return "text/csv; charset=utf-8";
  }
  return "text/plain";
}

Status ParseRequest(const Request& req, query::ExportRequest* out) {
  const Timestamp now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  if (req.method == Method::kGet) return query::ParseExportParams(req.params.items(), now, out);
  SUNDIAL_RETURN_IF_ERROR(query::CheckJsonBounds(req.body));
  SUNDIAL_RETURN_IF_ERROR(query::ParseExportJson(req.body, now, out));
  if (const std::string* f = req.params.Find("format"); f != nullptr) {
    if (!query::ParseExportFormat(*f, &out->format)) {
      return Status::InvalidArgument("Unknown export format '" + *f + "' (put, json or csv)");
    }
  }
  return Status::OK();
}

void RunExport(const ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  query::ExportRequest er;
  Status s = ParseRequest(req, &er);
  if (!s.ok()) return resp->Send(ErrorReply(s));
  query::QueryLimits limits;
  limits.max_series = ctx->options->query.max_series;
  limits.max_regex_length = ctx->options->query.max_regex_length;
  ResponderSink sink(resp, ctx->workers, ContentType(er.format));
  uint64_t points = 0;
  s = query::Export(ctx->storage, limits, er, &sink, &points);
  ctx->stats->AddPointsOut(PointsOut::kExport, points);
  if (s.ok()) return sink.Finish();
  if (!sink.started()) return resp->Send(ErrorReply(s));
  // Dropping the responder unfinished truncates the chunked body, so the
  // client sees an incomplete export rather than a short one.
  spdlog::warn("export failed after streaming started: {}", s.ToString());
}

}  // namespace

void RegisterExportRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet, Method::kPost}, "/api/export", OnWorkers(ctx, RunExport));
}

}  // namespace sundial::server
