#include <string>
#include <utility>

#include "config_json.h"
#include "routes.h"
#include "version.h"

namespace sundial::server {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

void RegisterRoutes(ServiceContext* ctx, http::Router* router) {
  RegisterUiRoutes(ctx, router);
  RegisterStatusRoutes(ctx, router);
  RegisterCoreRoutes(ctx, router);
  RegisterIngestRoutes(ctx, router);
  RegisterInfluxRoutes(ctx, router);
  RegisterQueryRoutes(ctx, router);
  RegisterExpRoutes(ctx, router);
  RegisterExportRoutes(ctx, router);
  RegisterDeleteRoutes(ctx, router);
  RegisterSnapshotRoutes(ctx, router);
  RegisterRemoteWriteRoutes(ctx, router);
  RegisterAnnotationRoutes(ctx, router);
  RegisterUidRoutes(ctx, router);
  RegisterStatsRoutes(ctx, router);
  RegisterRelayRoutes(ctx, router);
}

namespace {

Reply PlainText(std::string body) {
  Reply reply;
  reply.content_type = "text/plain; charset=utf-8";
  reply.body = std::move(body);
  return reply;
}

// OpenTSDB's pre-/api form answers JSON when asked with ?json or a path
// that ends in "json" (/version/json), else text.
bool WantsJson(const Request& req) {
  const std::string_view p = req.path;
  return req.params.Has("json") || (p.size() >= 4 && p.substr(p.size() - 4) == "json");
}

}  // namespace

void RegisterCoreRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet}, "/api/version",
              [](Request, ResponderPtr r) { r->Send(Reply::Json(VersionJson())); });
  router->Add({Method::kGet, Method::kDelete}, "/api/dropcaches", [](Request, ResponderPtr r) {
    r->Send(Reply::Json(R"({"status":"200","message":"Caches dropped"})"));
  });
  // OpenTSDB's ConfigRpc answers GET and POST alike (config_json.h).
  router->Add({Method::kGet, Method::kPost}, "/api/config", [ctx](Request, ResponderPtr r) {
    r->Send(Reply::Json(ConfigJson(*ctx->options)));
  });
  // The pre-/api forms of OpenTSDB's HTTP server (README "Other OpenTSDB
  // endpoints"): text unless JSON is asked for, as OpenTSDB 2.4 answers.
  router->Add({Method::kGet}, "/version", [](Request req, ResponderPtr r) {
    r->Send(WantsJson(req) ? Reply::Json(VersionJson()) : PlainText(TelnetVersionReply()));
  });
  router->Add({Method::kGet, Method::kDelete}, "/dropcaches", [](Request req, ResponderPtr r) {
    r->Send(WantsJson(req) ? Reply::Json(R"({"status":"200","message":"Caches dropped"})")
                           : PlainText("Caches dropped.\n"));
  });
}

}  // namespace sundial::server
