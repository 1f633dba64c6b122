// Ingest endpoints (/api/put, /api/stats, /metrics). None yet.
#include "routes.h"

namespace sundial::server {

void RegisterIngestRoutes(ServiceContext* /*ctx*/, http::Router* /*router*/) {}

}  // namespace sundial::server
