// GET /api/relay: the relay's targets and their progress (README
// "Scaling out"), and the relay's records for /api/stats and /metrics.
#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "routes.h"
#include "server_json.h"
#include "stats_report.h"
#include "sundial/relay/relay.h"

namespace sundial::server {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

namespace {
constexpr size_t kMaxErrorTag = 200;  // characters of last_error in the error tag
}  // namespace

void AppendRelayStats(const ServiceContext& ctx, std::vector<StatRecord>* out) {
  if (ctx.relay == nullptr) return;
  const std::vector<relay::TargetStatus> targets = ctx.relay->TargetStatuses();
  // Grouped by metric, then target: /metrics wants each family in one run.
  auto each = [&](const char* name, bool counter, auto&& fill) {
    for (const relay::TargetStatus& t : targets) {
      StatRecord r;
      r.name = std::string("relay.") + name;
      r.tag_key = "target";
      r.tag_value = t.id;
      r.counter = counter;
      fill(t, &r);
      out->push_back(std::move(r));
    }
  };
  auto count = [&](const char* name, uint64_t relay::TargetStatus::*field, bool counter) {
    each(name, counter, [&](const relay::TargetStatus& t, StatRecord* r) { r->value = t.*field; });
  };
  count("points_sent", &relay::TargetStatus::points_sent, true);
  count("batches_sent", &relay::TargetStatus::batches_sent, true);
  count("retries", &relay::TargetStatus::retries, true);
  count("points_dropped", &relay::TargetStatus::points_dropped, true);
  count("points_rejected", &relay::TargetStatus::points_rejected, true);
  count("pending_bytes", &relay::TargetStatus::pending_bytes, false);
  count("pending_points", &relay::TargetStatus::pending_points, false);
  each("lag_seconds", false, [](const relay::TargetStatus& t, StatRecord* r) {
    r->fractional = true;
    r->real_value = t.lag_seconds;
  });
  each("connected", false,
       [](const relay::TargetStatus& t, StatRecord* r) { r->value = t.connected ? 1 : 0; });
  // 1 once a failure happened; the error tag holds the last one (as
  // storage.read_only's reason tag does), last_error_time when (Unix s).
  each("last_error", false, [](const relay::TargetStatus& t, StatRecord* r) {
    r->value = t.last_error.empty() ? 0 : 1;
    r->more_tags.emplace_back("error", t.last_error.substr(0, kMaxErrorTag));
  });
  each("last_error_time", false, [](const relay::TargetStatus& t, StatRecord* r) {
    r->value = static_cast<uint64_t>(std::max<int64_t>(0, t.last_error_ms / 1000));
  });
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
  return DumpJson(out);
}

void RegisterRelayRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet}, "/api/relay", [ctx](Request, ResponderPtr r) {
    r->Send(Reply::Json(RelayStatusJson(ctx->relay)));
  });
}

}  // namespace sundial::server
