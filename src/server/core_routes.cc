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

void RegisterCoreRoutes(ServiceContext* /*ctx*/, http::Router* router) {
  router->Add({Method::kGet}, "/api/version",
              [](Request, ResponderPtr r) { r->Send(Reply::Json(VersionJson())); });
  router->Add({Method::kGet, Method::kDelete}, "/api/dropcaches", [](Request, ResponderPtr r) {
    r->Send(Reply::Json(R"({"status":"200","message":"Caches dropped"})"));
  });
}

}  // namespace sundial::server
