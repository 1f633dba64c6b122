// GET /api/status: one JSON object with what the built-in page's status
// view shows and /api/stats does not give (disk use per partition, the WAL
// on disk, the rollup watermark as a time), beside the basic counters, so
// that the page need not scrape the OpenTSDB-shaped stats list:
//
//   {"version":{...same as /api/version...},
//    "now":1700000000123,          // ms
//    "start_time":1699990000,      // s
//    "uptime":10000,               // s
//    "series":12, "points_stored":345, "http_requests":67, "telnet_commands":8,
//    "read_only":false, "read_only_reason":"",
//    "data_dir":"/var/lib/sundial", "free_bytes":123456789,
//    "wal":{"bytes":4096,"files":1,"bytes_written":8192,"syncs":3},
//    "partitions":[{"start":1699920000000,"end":1700006400000,"bytes":65536,"files":2}],
//    "rollup":{"watermark":1699999200000,"disk_bytes":1024,"dirty_pending":0}}
//
// "rollup" is absent when rollups are off; "partitions" lists the partition
// directories on disk, oldest first. Listing the data directory touches the
// disk, so the reply is built on the worker pool.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "routes.h"
#include "sundial/common/env.h"
#include "sundial/common/json_escape.h"
#include "version.h"

namespace sundial::server {

namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

struct DirUsage {
  uint64_t bytes = 0;
  uint64_t files = 0;
};

// The sizes of the plain files directly in dir (missing dir: zero).
DirUsage UsageOf(Env* env, const std::string& dir) {
  DirUsage u;
  std::vector<std::string> names;
  if (!env->ListDir(dir, &names).ok()) return u;
  for (const std::string& name : names) {
    uint64_t size = 0;
    if (env->GetFileSize(dir + "/" + name, &size).ok()) {
      u.bytes += size;
      ++u.files;
    }
  }
  return u;
}

// Parses a partition directory name "<start>_<end>" (ms). False otherwise.
bool ParsePartitionName(const std::string& name, int64_t* start, int64_t* end) {
  const size_t us = name.find('_');
  if (us == std::string::npos || us == 0 || us + 1 == name.size()) return false;
  char* e = nullptr;
  *start = std::strtoll(name.c_str(), &e, 10);
  if (e != name.c_str() + us) return false;
  *end = std::strtoll(name.c_str() + us + 1, &e, 10);
  return *e == '\0';
}

void AppendField(std::string_view key, uint64_t v, std::string* out) {
  *out += ",\"";
  *out += key;
  *out += "\":";
  *out += std::to_string(v);
}

void AppendPartitions(Env* env, const std::string& root, std::string* out) {
  struct Part {
    int64_t start, end;
    DirUsage usage;
  };
  std::vector<Part> parts;
  std::vector<std::string> names;
  if (env->ListDir(root, &names).ok()) {
    for (const std::string& name : names) {
      Part p{};
      if (!ParsePartitionName(name, &p.start, &p.end)) continue;
      p.usage = UsageOf(env, root + "/" + name);
      parts.push_back(p);
    }
  }
  std::sort(parts.begin(), parts.end(),
            [](const Part& a, const Part& b) { return a.start < b.start; });
  *out += ",\"partitions\":[";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) *out += ',';
    *out += "{\"start\":" + std::to_string(parts[i].start) +
            ",\"end\":" + std::to_string(parts[i].end) +
            ",\"bytes\":" + std::to_string(parts[i].usage.bytes) +
            ",\"files\":" + std::to_string(parts[i].usage.files) + '}';
  }
  *out += ']';
}

std::string StatusJson(const ServiceContext& ctx, Env* env) {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  const int64_t start_s = ctx.stats->start_time_s;
  std::string out = "{\"version\":" + VersionJson();
  out += ",\"now\":" + std::to_string(now_ms);
  out += ",\"start_time\":" + std::to_string(start_s);
  const int64_t uptime = now_ms / 1000 - start_s;
  AppendField("uptime", uptime > 0 ? static_cast<uint64_t>(uptime) : 0, &out);
  AppendField("http_requests", ctx.router ? ctx.router->requests() : 0, &out);
  AppendField("telnet_commands", ctx.stats->telnet_commands.load(), &out);
  const std::string& dir = ctx.options->storage.data_dir;
  out += ",\"data_dir\":";
  AppendJsonString(dir, &out);
  uint64_t free_bytes = 0;
  if (env->FreeSpace(dir, &free_bytes).ok()) AppendField("free_bytes", free_bytes, &out);
  if (ctx.storage != nullptr) {
    const storage::StorageStats s = ctx.storage->stats();
    const storage::StorageHealth h = ctx.storage->health();
    AppendField("series", s.series_count, &out);
    AppendField("points_stored", s.points_appended, &out);
    out += std::string(",\"read_only\":") + (h.read_only || h.stopped ? "true" : "false");
    out += ",\"read_only_reason\":";
    AppendJsonString(h.reason, &out);
    const DirUsage wal = UsageOf(env, dir + "/wal");
    out += ",\"wal\":{\"bytes\":" + std::to_string(wal.bytes) +
           ",\"files\":" + std::to_string(wal.files) +
           ",\"bytes_written\":" + std::to_string(s.wal_bytes_written) +
           ",\"syncs\":" + std::to_string(s.wal_syncs) + '}';
    AppendPartitions(env, dir + "/part", &out);
  }
  if (ctx.rollups != nullptr) {
    const rollup::RollupStats r = ctx.rollups->stats();
    out += ",\"rollup\":{\"watermark\":" + std::to_string(r.watermark > 0 ? r.watermark : 0) +
           ",\"disk_bytes\":" + std::to_string(r.disk_bytes) +
           ",\"dirty_pending\":" + std::to_string(r.dirty_pending) + '}';
  }
  out += '}';
  return out;
}

}  // namespace

void RegisterStatusRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet}, "/api/status", [ctx](Request, ResponderPtr r) {
    ctx->workers->Submit([ctx, r] {
      std::unique_ptr<Env> env = NewPosixEnv();
      r->Send(Reply::Json(StatusJson(*ctx, env.get())));
    });
  });
}

}  // namespace sundial::server
