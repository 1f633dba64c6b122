// HTTP route wiring. Each area registers its own endpoints from its own
// file, so handlers stay next to the module they call:
//   ui_routes.cc      /, /ui/*: the built-in web page             (server)
//   status_routes.cc  /api/status: figures for the page's status view
//   core_routes.cc    /api/version, /api/dropcaches           (server)
//   ingest_routes.cc  /api/put, /api/stats, /metrics          (ingest)
//   query_routes.cc   /api/query, /api/suggest, /api/search, ... (query)
//   exp_routes.cc     /api/query/exp, /api/query/gexp          (query)
//   remote_write_routes.cc  /api/v1/write, /api/v1/push   (ingest)
//   annotation_routes.cc /api/annotation[s][/bulk]                (query)
//   uid_routes.cc     /api/uid/{assign,uidmeta,tsmeta,rename}     (storage)
//   stats_routes.cc   /api/stats/{query,threads,jvm}, /api/serializers
#pragma once

#include "service_context.h"
#include "sundial/http/router.h"
#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"

namespace sundial::server {

// Registers every route. ctx must outlive the router's use.
void RegisterRoutes(ServiceContext* ctx, http::Router* router);

void RegisterUiRoutes(ServiceContext* ctx, http::Router* router);
void RegisterStatusRoutes(ServiceContext* ctx, http::Router* router);
void RegisterCoreRoutes(ServiceContext* ctx, http::Router* router);
void RegisterIngestRoutes(ServiceContext* ctx, http::Router* router);
void RegisterInfluxRoutes(ServiceContext* ctx, http::Router* router);  // influx_routes.cc
void RegisterQueryRoutes(ServiceContext* ctx, http::Router* router);
void RegisterExpRoutes(ServiceContext* ctx, http::Router* router);
void RegisterExportRoutes(ServiceContext* ctx, http::Router* router);  // export_routes.cc
// delete_routes.cc: DELETE /api/series, and /api/query with "delete".
void RegisterDeleteRoutes(ServiceContext* ctx, http::Router* router);
void HandleDeleteQuery(ServiceContext* ctx, query::QuerySpec spec, const http::ResponderPtr& resp);
// snapshot_routes.cc: /api/snapshot.
void RegisterSnapshotRoutes(ServiceContext* ctx, http::Router* router);
void RegisterRemoteWriteRoutes(ServiceContext* ctx, http::Router* router);
void RegisterAnnotationRoutes(ServiceContext* ctx, http::Router* router);
void RegisterUidRoutes(ServiceContext* ctx, http::Router* router);
void RegisterStatsRoutes(ServiceContext* ctx, http::Router* router);
void RegisterRelayRoutes(ServiceContext* ctx, http::Router* router);  // relay_routes.cc

}  // namespace sundial::server
