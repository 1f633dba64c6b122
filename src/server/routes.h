// HTTP route wiring. Each area registers its own endpoints from its own
// file, so handlers stay next to the module they call:
//   core_routes.cc    /api/version, /api/dropcaches           (server)
//   ingest_routes.cc  /api/put, /api/stats, /metrics          (ingest)
//   query_routes.cc   /api/query, /api/suggest, /api/search, ... (query)
#pragma once

#include "service_context.h"
#include "sundial/http/router.h"

namespace sundial::server {

// Registers every route. ctx must outlive the router's use.
void RegisterRoutes(ServiceContext* ctx, http::Router* router);

void RegisterCoreRoutes(ServiceContext* ctx, http::Router* router);
void RegisterIngestRoutes(ServiceContext* ctx, http::Router* router);
void RegisterQueryRoutes(ServiceContext* ctx, http::Router* router);
void RegisterRelayRoutes(ServiceContext* ctx, http::Router* router);  // relay_routes.cc

}  // namespace sundial::server
