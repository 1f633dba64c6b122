// Query endpoints (/api/query, /api/suggest, /api/search/lookup, ...). None yet.
#include "routes.h"

namespace sundial::server {

void RegisterQueryRoutes(ServiceContext* /*ctx*/, http::Router* /*router*/) {}

}  // namespace sundial::server
