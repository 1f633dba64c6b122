// The server's self-metrics, gathered once and printed in three formats:
// OpenTSDB's /api/stats JSON array, the telnet `stats` lines, and the
// Prometheus text format on /metrics.
//
//   /api/stats  [{"metric":"tsd.rpc.received","timestamp":1700000000,
//                 "value":"12","tags":{"host":"h1","type":"put"}}, ...]
//   stats       tsd.rpc.received 1700000000 12 type=put host=h1
//   /metrics    # TYPE sundial_rpc_received_total counter
//               sundial_rpc_received_total{type="put"} 12
//
// Thread-safety: CollectStats reads atomics and storage stats; it may run
// on any thread.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "service_context.h"

namespace sundial::server {

struct StatRecord {
  std::string name;     // OpenTSDB-style, without the "tsd." prefix
  uint64_t value = 0;
  std::string tag_key;  // one optional tag, e.g. type=put
  std::string tag_value;
  bool counter = true;  // false: a gauge
  // More tags after tag_key, e.g. error=<text> next to target=<id>. Values
  // may hold any text: /metrics escapes them, the telnet form replaces
  // characters OpenTSDB does not allow in tag values with '_'.
  std::vector<std::pair<std::string, std::string>> more_tags;
  // A gauge with a fraction (e.g. seconds): printed with three decimals
  // instead of value.
  bool fractional = false;
  double real_value = 0;
};

std::vector<StatRecord> CollectStats(const ServiceContext& ctx);
// The relay's per-target records (tag target=<id>); relay_routes.cc.
void AppendRelayStats(const ServiceContext& ctx, std::vector<StatRecord>* out);

std::string StatsJson(const std::vector<StatRecord>& records, int64_t now_s,
                      const std::string& host);
std::string StatsTelnet(const std::vector<StatRecord>& records, int64_t now_s,
                        const std::string& host);
std::string StatsPrometheus(const std::vector<StatRecord>& records);

// The local host name (for the host tag), "localhost" if unknown.
std::string LocalHostName();

}  // namespace sundial::server
