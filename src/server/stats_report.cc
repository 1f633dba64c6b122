#include "stats_report.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string_view>

#include "disk_writes.h"
#include "ingest_service.h"
#include "sundial/http/reply.h"

namespace sundial::server {
namespace {

std::string ValueText(const StatRecord& rec) {
  if (!rec.fractional) return std::to_string(rec.value);
  char buf[48];
  std::snprintf(buf, sizeof(buf), "%.3f", rec.real_value);
  return buf;
}

// OpenTSDB tag values allow [A-Za-z0-9-_./] (and Unicode letters); the
// telnet form is space-separated, so anything else becomes '_'.
std::string TelnetTagValue(std::string_view v) {
  std::string out(v);
  for (char& c : out) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '/' || (c & 0x80) != 0;
    if (!ok) c = '_';
  }
  return out;
}

// A Prometheus label value: backslash, double quote and newline escaped.
void AppendLabelValue(std::string_view v, std::string* out) {
  for (char c : v) {
    if (c == '\\' || c == '"') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      *out += "\\n";
    } else {
      out->push_back(c);
    }
  }
}

}  // namespace

const char* PointsOutName(PointsOut e) {
  switch (e) {
    case PointsOut::kQuery: return "query";
    case PointsOut::kLast: return "last";
    case PointsOut::kExp: return "exp";
    case PointsOut::kGexp: return "gexp";
    case PointsOut::kExport: return "export";
  }
  return "?";
}

std::string LocalHostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

std::vector<StatRecord> CollectStats(const ServiceContext& ctx) {
  std::vector<StatRecord> r;
  auto add = [&r](std::string name, uint64_t v, std::string k = {}, std::string tv = {},
                  bool counter = true) {
    StatRecord rec;
    rec.name = std::move(name);
    rec.value = v;
    rec.tag_key = std::move(k);
    rec.tag_value = std::move(tv);
    rec.counter = counter;
    r.push_back(std::move(rec));
  };
  const uint64_t open = ctx.connections ? ctx.connections->size() : 0;
  add("connectionmgr.connections", open, "type", "open", false);
  add("connectionmgr.connections", ctx.connections ? ctx.connections->total_accepted() : 0,
      "type", "total");
  const ingest::IngestStats* in = ctx.ingest ? ctx.ingest->stats() : nullptr;
  const uint64_t telnet_puts = in ? in->telnet_puts.load() : 0;
  const uint64_t http_puts = in ? in->http_put_requests.load() : 0;
  add("rpc.received", ctx.stats->telnet_commands.load() + telnet_puts, "type", "telnet");
  add("rpc.received", ctx.router ? ctx.router->requests() : 0, "type", "http");
  add("rpc.received", telnet_puts + http_puts, "type", "put");
  add("rpc.errors", in ? in->storage_errors.load() : 0, "type", "hbase_errors");
  add("rpc.errors", in ? in->invalid_values.load() : 0, "type", "invalid_values");
  add("rpc.errors", in ? in->illegal_arguments.load() : 0, "type", "illegal_arguments");
  add("rpc.errors", in ? in->unknown_metrics.load() : 0, "type", "unknown_metrics");
  add("rpc.errors", ctx.stats->telnet_unknown.load(), "type", "unknown_commands");
  add("datapoints.added", in ? in->points_stored.load() : 0, "type", "all");
  add("http.put.datapoints", in ? in->http_points.load() : 0);
  add("ingest.series_cache.misses", in ? in->series_cache_misses.load() : 0);
  // Points per wire protocol: accepted = in the WAL, rejected = refused.
  for (size_t i = 0; i < ingest::kProtocolCount; ++i) {
    const auto p = static_cast<ingest::Protocol>(i);
    add("ingest.points.accepted", in ? in->of(p).accepted.load() : 0, "protocol",
        std::string(ingest::ProtocolName(p)));
  }
  for (size_t i = 0; i < ingest::kProtocolCount; ++i) {
    const auto p = static_cast<ingest::Protocol>(i);
    add("ingest.points.rejected", in ? in->of(p).rejected.load() : 0, "protocol",
        std::string(ingest::ProtocolName(p)));
  }
  add("ingest.influx.requests", in ? in->influx_requests.load() : 0);
  add("ingest.influx.string_fields_skipped", in ? in->influx_string_fields.load() : 0);
  add("ingest.remote_write.requests", in ? in->remote_write_requests.load() : 0);
  add("ingest.remote_write.stale_dropped", in ? in->remote_write_stale.load() : 0);
  add("ingest.remote_write.bad_requests", in ? in->remote_write_bad.load() : 0);
  // Data points sent in answers, per endpoint (the "points out" rate).
  for (size_t i = 0; i < kPointsOutCount; ++i) {
    add("query.points.emitted", ctx.stats->points_out[i].load(std::memory_order_relaxed),
        "endpoint", PointsOutName(static_cast<PointsOut>(i)));
  }
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  add("uptime", static_cast<uint64_t>(now - ctx.stats->start_time_s), {}, {}, false);
  if (ctx.storage != nullptr) {
    const storage::StorageStats s = ctx.storage->stats();
    add("storage.points_appended", s.points_appended);
    add("storage.series", s.series_count, {}, {}, false);
    add("storage.wal.bytes_written", s.wal_bytes_written);
    add("storage.wal.syncs", s.wal_syncs);
    add("storage.pages_sealed", s.pages_sealed);
    add("storage.corruptions_skipped", s.corruptions_skipped);
    add("storage.partitions_compacted", s.partitions_compacted);
    // 1 while writes are refused; the tag says why (the log has the details).
    const storage::StorageHealth h = ctx.storage->health();
    add("storage.read_only", h.read_only ? 1 : 0, "reason", h.cause, false);
    add("storage.apply_errors", s.apply_errors);
    add("storage.open_files", s.open_files, {}, {}, false);
    add("storage.file_closes", s.file_closes);
    // SD-card wear: bytes the kernel counts as written by this process
    // (/proc/self/io write_bytes, every cause included) since it started,
    // and per 1000 points stored since then. Absent without /proc.
    uint64_t written = 0;
    if (ProcessWriteBytes(&written)) {
      add("storage.disk.bytes_written", written);
      const uint64_t points = s.points_appended;
      const double per_k = points == 0 ? 0.0 : 1000.0 * static_cast<double>(written) /
                                                    static_cast<double>(points);
      add("storage.disk.bytes_written_per_1000_points", static_cast<uint64_t>(per_k + 0.5), {}, {},
          false);
    }
    add("storage.memory", s.memory_bytes, "part", "all", false);
    add("storage.memory", s.memory_heads_bytes, "part", "heads", false);
    add("storage.memory", s.memory_series_bytes, "part", "series", false);
    add("storage.memory", s.memory_dict_bytes, "part", "dictionary", false);
    add("storage.heads_sealed_early", s.heads_sealed_early);
    // Memory of the write path (what bounds a backfill; README "Backfill").
    add("storage.pages_pending", s.pages_pending, {}, {}, false);
    add("storage.pending_bytes", s.pending_bytes, {}, {}, false);
    add("storage.pending_bytes_peak", s.pending_bytes_peak, {}, {}, false);
    add("storage.append_waits", s.append_waits);
    add("storage.partitions_open", s.partitions, {}, {}, false);
    add("storage.page_count", s.page_count, {}, {}, false);
    add("storage.ooo_parked_bytes", s.ooo_parked_bytes, {}, {}, false);
    add("storage.pages_read", s.pages_read);
  }
  if (ctx.cache != nullptr) {
    const query::BucketCache::Counters c = ctx.cache->counters();
    add("query.cache.hits", c.hits);
    add("query.cache.misses", c.misses);
    add("query.cache.entries", c.entries, {}, {}, false);
    add("query.cache.bytes", c.bytes, {}, {}, false);
  }
  if (ctx.rollups != nullptr) {
    const rollup::RollupStats s = ctx.rollups->stats();
    add("rollup.passes", s.passes);
    add("rollup.hours_built", s.hours_built);
    add("rollup.hours_read", s.hours_read);
    add("rollup.late_marks", s.late_marks);
    add("rollup.dirty_pending", s.dirty_pending, {}, {}, false);
    add("rollup.disk_bytes", s.disk_bytes, {}, {}, false);
    add("rollup.errors", s.errors);
    // Hours before this (Unix seconds) are answered from rollups; 0 = none yet.
    add("rollup.watermark", s.watermark > 0 ? static_cast<uint64_t>(s.watermark / 1000) : 0, {},
        {}, false);
  }
  AppendRelayStats(ctx, &r);
  return r;
}

std::string StatsJson(const std::vector<StatRecord>& records, int64_t now_s,
                      const std::string& host) {
  std::string out = "[";
  for (const StatRecord& rec : records) {
    if (out.size() > 1) out += ',';
    out += "{\"metric\":";
    AppendJsonString("tsd." + rec.name, &out);
    out += ",\"timestamp\":" + std::to_string(now_s) + ",\"value\":\"" + ValueText(rec) +
           "\",\"tags\":{\"host\":";
    AppendJsonString(host, &out);
    if (!rec.tag_key.empty()) {
      out += ',';
      AppendJsonString(rec.tag_key, &out);
      out += ':';
      AppendJsonString(rec.tag_value, &out);
    }
    for (const auto& [k, v] : rec.more_tags) {
      out += ',';
      AppendJsonString(k, &out);
      out += ':';
      AppendJsonString(v, &out);
    }
    out += "}}";
  }
  out += ']';
  return out;
}

std::string StatsTelnet(const std::vector<StatRecord>& records, int64_t now_s,
                        const std::string& host) {
  std::string out;
  for (const StatRecord& rec : records) {
    out += "tsd." + rec.name + ' ' + std::to_string(now_s) + ' ' + ValueText(rec);
    if (!rec.tag_key.empty()) out += ' ' + rec.tag_key + '=' + TelnetTagValue(rec.tag_value);
    for (const auto& [k, v] : rec.more_tags) {
      if (!v.empty()) out += ' ' + k + '=' + TelnetTagValue(v);  // OpenTSDB has no empty values
    }
    out += " host=" + host + '\n';
  }
  return out;
}

std::string StatsPrometheus(const std::vector<StatRecord>& records) {
  std::string out;
  std::string last_family;
  for (const StatRecord& rec : records) {
    std::string family = "sundial_";
    for (char c : rec.name) family += (c == '.' || c == '-') ? '_' : c;
    if (rec.counter) family += "_total";
    if (family != last_family) {
      out += "# TYPE " + family + (rec.counter ? " counter\n" : " gauge\n");
      last_family = family;
    }
    out += family;
    if (!rec.tag_key.empty() || !rec.more_tags.empty()) {
      out += '{';
      bool first = true;
      auto label = [&](const std::string& k, const std::string& v) {
        if (k.empty()) return;
        if (!first) out += ',';
        first = false;
        out += k + "=\"";
        AppendLabelValue(v, &out);
        out += '"';
      };
      label(rec.tag_key, rec.tag_value);
      for (const auto& [k, v] : rec.more_tags) label(k, v);
      out += '}';
    }
    out += ' ' + ValueText(rec) + '\n';
  }
  return out;
}

}  // namespace sundial::server
