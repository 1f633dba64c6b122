// GET /api/relay: the relay's targets and their progress (README
// "Scaling out"), and the relay's records for /api/stats and /metrics.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "routes.h"
#include "stats_report.h"
#include "sundial/relay/relay.h"

namespace sundial::server {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

void AppendRelayStats(const ServiceContext& ctx, std::vector<StatRecord>* out) {
  if (ctx.relay == nullptr) return;
  for (const relay::TargetStatus& t : ctx.relay->TargetStatuses()) {
    auto add = [&](const char* name, uint64_t v, bool counter) {
      out->push_back(StatRecord{std::string("relay.") + name, v, "target", t.id, counter});
    };
    add("points_sent", t.points_sent, true);
    add("batches_sent", t.batches_sent, true);
    add("retries", t.retries, true);
    add("points_dropped", t.points_dropped, true);
    add("points_rejected", t.points_rejected, true);
    add("pending_bytes", t.pending_bytes, false);
    add("pending_points", t.pending_points, false);
    add("lag_seconds", static_cast<uint64_t>(t.lag_seconds), false);
    add("connected", t.connected ? 1 : 0, false);
  }
}

std::string RelayStatusJson(const relay::Relay* relay) {
  nlohmann::json targets = nlohmann::json::array();
  if (relay != nullptr) {
    for (const relay::TargetStatus& t : relay->TargetStatuses()) {
      targets.push_back({{"url", t.url},
                         {"id", t.id},
                         {"protocol", t.protocol},
                         {"pointsSent", t.points_sent},
                         {"batchesSent", t.batches_sent},
                         {"retries", t.retries},
                         {"pointsDropped", t.points_dropped},
                         {"pointsRejected", t.points_rejected},
                         {"pendingBytes", t.pending_bytes},
                         {"pendingPoints", t.pending_points},
                         {"lagSeconds", t.lag_seconds},
                         {"connected", t.connected},
                         {"lastError", t.last_error},
                         {"lastErrorTime", t.last_error_ms / 1000},
                         {"walSegment", t.position.segment},
                         {"walOffset", t.position.offset}});
    }
  }
  nlohmann::json out = {{"enabled", relay != nullptr}, {"targets", targets}};
  return out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void RegisterRelayRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet}, "/api/relay", [ctx](Request, ResponderPtr r) {
    r->Send(Reply::Json(RelayStatusJson(ctx->relay)));
  });
}

}  // namespace sundial::server
