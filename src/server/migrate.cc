// Migration: `sundiald import --from URL --metrics GLOBS --start T ...`.
//
// Lists the source's metrics with /api/suggest?type=metrics, keeps those
// matching a glob (sorted by name), and for each metric and time chunk asks
// /api/query for m=none:<metric> with ms=true. The `none` aggregator
// returns every series on its own with all its tags (OpenTSDB 2.2+ and
// Sundial), so the chunk's answer holds the raw points of every series.
// After a chunk was stored (every line acknowledged by the target) the state
// file records "<metric> <next chunk start>", written to a temporary file
// and renamed, so a rerun with the same --state resumes after the last
// stored chunk. A chunk sent again in part is harmless: the same values
// land at the same timestamps.
//
// Limits: one chunk's JSON answer is held in memory (at most kMaxReplyBytes;
// choose a smaller --chunk for dense metrics), and the source's own query
// limits (Sundial's query.max_output_points, OpenTSDB's
// tsd.query.limits.*) apply to each chunk.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "batch_sender.h"
#include "cli_tools.h"
#include "http_client.h"
#include "import_report.h"
#include "sundial/query/export.h"
#include "sundial/query/json_format.h"

namespace sundial::server {

namespace {

constexpr std::chrono::milliseconds kTimeout{300000};
constexpr size_t kMaxReplyBytes = 512u << 20;

struct MigrateState {
  bool present = false;
  std::string metric;
  int64_t next = 0;
};

// The first line of a state file: what was being copied.
std::string StateHeader(const MigrateParams& p) {
  std::string h = "sundial-migrate 1 " + p.from + " " + std::to_string(p.start_ms) + " " +
                  std::to_string(p.end_ms) + " " + std::to_string(p.chunk_ms);
  for (const std::string& g : p.patterns) h += " " + g;
  return h;
}

Status LoadState(const MigrateParams& p, MigrateState* st) {
  if (p.state_path.empty()) return Status::OK();
  std::ifstream in(p.state_path);
  if (!in) return Status::OK();  // a new migration
  std::string header, metric_line, next_line;
  std::getline(in, header);
  std::getline(in, metric_line);
  std::getline(in, next_line);
  if (header != StateHeader(p)) {
    return Status::InvalidArgument(p.state_path,
                                   "state file belongs to another migration (different "
                                   "--from, --metrics, --start, --end or --chunk)");
  }
  if (metric_line.compare(0, 7, "metric ") != 0 || next_line.compare(0, 5, "next ") != 0) {
    return Status::Corruption(p.state_path, "unreadable state file");
  }
  st->present = true;
  st->metric = metric_line.substr(7);
  st->next = std::strtoll(next_line.c_str() + 5, nullptr, 10);
  return Status::OK();
}

Status SaveState(const MigrateParams& p, const std::string& metric, int64_t next) {
  if (p.state_path.empty()) return Status::OK();
  const std::string tmp = p.state_path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << StateHeader(p) << "\nmetric " << metric << "\nnext " << next << "\n";
    out.flush();
    if (!out) return Status::IOError(tmp, "cannot write the state file");
  }
  if (std::rename(tmp.c_str(), p.state_path.c_str()) != 0) {
    return Status::IOError(p.state_path, "cannot replace the state file");
  }
  return Status::OK();
}

Status ListMetrics(const HttpUrl& src, const MigrateParams& p, std::vector<std::string>* out) {
  int code = 0;
  std::string body;
  SUNDIAL_RETURN_IF_ERROR(
      HttpGetBody(src, "/api/suggest?type=metrics&max=100000000", kTimeout, kMaxReplyBytes, &code, &body));
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (code != 200 || !j.is_array()) {
    return Status::IOError("/api/suggest answered " + std::to_string(code), body.substr(0, 300));
  }
  for (const auto& m : j) {
    if (!m.is_string()) continue;
    const std::string& name = m.get_ref<const std::string&>();
    for (const std::string& g : p.patterns) {
      if (query::GlobMatch(g, name)) {
        out->push_back(name);
        break;
      }
    }
  }
  std::sort(out->begin(), out->end());
  return Status::OK();
}

// Appends a /api/query value as put-line text; false if it cannot be one.
bool AppendValue(const nlohmann::json& v, std::string* out) {
  if (v.is_number_integer()) {
    query::AppendInt(v.get<int64_t>(), out);
  } else if (v.is_number_float() && std::isfinite(v.get<double>())) {
    query::AppendJavaDouble(v.get<double>(), out);
  } else {
    return false;
  }
  return true;
}

// Copies [t0, t1] of one metric.
Status CopyChunk(const HttpUrl& src, const std::string& metric, int64_t t0, int64_t t1,
                 BatchSender* sender, ImportReport* report) {
  const std::string path = "/api/query?start=" + std::to_string(t0) + "&end=" +
                           std::to_string(t1) + "&ms=true&m=" + UrlEncode("none:" + metric);
  int code = 0;
  std::string body;
  const Status s = HttpGetBody(src, path, kTimeout, kMaxReplyBytes, &code, &body);
  if (s.IsResourceExhausted()) {
    return Status::ResourceExhausted(metric + " at " + std::to_string(t0) + ": " + s.message(),
                                     "use a smaller --chunk");
  }
  SUNDIAL_RETURN_IF_ERROR(s);
  if (code == 400 && body.find("No such name") != std::string::npos) return Status::OK();
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (code != 200 || !j.is_array()) {
    return Status::IOError("/api/query for " + metric + " from " + std::to_string(t0) +
                               " answered " + std::to_string(code) +
                               (code == 413 ? " (use a smaller --chunk)" : ""),
                           body.substr(0, 300));
  }
  const std::string source = metric + "@" + std::to_string(t0);
  std::string line, suffix;
  uint64_t n = 0;
  for (const auto& series : j) {
    if (!series.is_object() || !series.contains("dps") || !series["dps"].is_object()) continue;
    suffix.clear();
    if (series.contains("tags") && series["tags"].is_object()) {
      for (auto it = series["tags"].begin(); it != series["tags"].end(); ++it) {
        if (!it.value().is_string()) continue;
        suffix += " " + it.key() + "=" + it.value().get<std::string>();
      }
    }
    for (auto it = series["dps"].begin(); it != series["dps"].end(); ++it) {
      ++n;
      line = "put " + metric + " " + it.key() + " ";
      if (!AppendValue(it.value(), &line)) {
        report->Reject(source, n, "value is not a finite number: " + it.value().dump());
        continue;
      }
      line += suffix;
      SUNDIAL_RETURN_IF_ERROR(sender->Add(line, source, n));
    }
  }
  return sender->Flush();
}

}  // namespace

Status Migrate(const MigrateParams& p, BatchSender* sender, ImportReport* report) {
  HttpUrl src;
  SUNDIAL_RETURN_IF_ERROR(ParseToolUrl(p.from, &src));
  std::vector<std::string> metrics;
  SUNDIAL_RETURN_IF_ERROR(ListMetrics(src, p, &metrics));
  MigrateState state;
  SUNDIAL_RETURN_IF_ERROR(LoadState(p, &state));
  for (const std::string& metric : metrics) {
    if (state.present && metric < state.metric) continue;
    int64_t t = state.present && metric == state.metric ? std::max(state.next, p.start_ms)
                                                        : p.start_ms;
    while (t <= p.end_ms) {
      const int64_t t1 = p.end_ms - t < p.chunk_ms ? p.end_ms : t + p.chunk_ms - 1;
      SUNDIAL_RETURN_IF_ERROR(CopyChunk(src, metric, t, t1, sender, report));
      report->Progress(metric, 0, 0);
      if (t1 == INT64_MAX) break;
      t = t1 + 1;
      SUNDIAL_RETURN_IF_ERROR(SaveState(p, metric, t));
    }
    SUNDIAL_RETURN_IF_ERROR(SaveState(p, metric, p.end_ms == INT64_MAX ? p.end_ms : p.end_ms + 1));
  }
  return Status::OK();
}

}  // namespace sundial::server
