// /api/stats/query, /api/stats/threads, /api/stats/jvm and /api/serializers
// (OpenTSDB's StatsRpc and SerializerRpc, opentsdb-compat.md §6.3).
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "query_tracker.h"
#include "routes.h"
#include "server_json.h"
#include "sundial/common/json_escape.h"
#include "sundial/query/json_format.h"
#include "version.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

struct ThreadInfo {
  int64_t tid = 0;
  std::string name;
  char state = '?';
  int64_t cpu_ms = 0;
};

// Java's Thread.State for a Linux task state letter.
const char* JavaState(char s) {
  switch (s) {
    case 'R': return "RUNNABLE";
    case 'S': return "WAITING";
    case 'D': return "BLOCKED";
    case 'T':
    case 't': return "WAITING";
    default: return "TERMINATED";
  }
}

// Reads /proc/self/task/<tid>/{comm,stat}. False if the thread is gone.
bool ReadThread(const std::string& tid, long ticks, ThreadInfo* t) {
  const std::string dir = "/proc/self/task/" + tid;
  char buf[1024];
  FILE* f = std::fopen((dir + "/comm").c_str(), "r");
  if (f == nullptr) return false;
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  t->name.assign(buf, n);
  while (!t->name.empty() && t->name.back() == '\n') t->name.pop_back();
  f = std::fopen((dir + "/stat").c_str(), "r");
  if (f == nullptr) return false;
  const size_t m = std::fread(buf, 1, sizeof(buf) - 1, f);
  std::fclose(f);
  buf[m] = '\0';
  // "tid (comm) S ppid ..." where comm may hold spaces or ')': scan from
  // the last ')'. utime and stime are fields 14 and 15.
  const std::string stat(buf, m);
  const size_t close = stat.rfind(')');
  if (close == std::string::npos || close + 2 >= stat.size()) return false;
  t->state = stat[close + 2];
  unsigned long long utime = 0, stime = 0;
  if (std::sscanf(stat.c_str() + close + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                  &utime, &stime) != 2) {
    return false;
  }
  t->tid = std::atoll(tid.c_str());
  t->cpu_ms = ticks > 0 ? static_cast<int64_t>((utime + stime) * 1000ull /
                                                static_cast<unsigned long long>(ticks))
                         : 0;
  return true;
}

std::string ThreadsJson() {
  const long ticks = sysconf(_SC_CLK_TCK);
  std::vector<ThreadInfo> threads;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      ThreadInfo t;
      if (ReadThread(e->d_name, ticks, &t)) threads.push_back(std::move(t));
    }
    closedir(d);
  }
  std::string out = "[";
  for (size_t i = 0; i < threads.size(); ++i) {
    const ThreadInfo& t = threads[i];
    if (i) out.push_back(',');
    out.append("{\"threadID\":");
    query::AppendInt(t.tid, &out);
    out.append(",\"name\":");
    AppendJsonString(t.name, &out);
    out.append(",\"state\":");
    AppendJsonString(JavaState(t.state), &out);
    out.append(",\"linuxState\":");
    AppendJsonString(std::string(1, t.state), &out);
    out.append(",\"cpuTimeMs\":");
    query::AppendInt(t.cpu_ms, &out);
    out.append(",\"interrupted\":false,\"stack\":[]}");
  }
  out.push_back(']');
  return out;
}

// OpenTSDB's HttpJsonSerializer as /api/serializers lists it, restricted to
// the formatters and parsers of the endpoints Sundial serves.
std::string SerializersJson() {
  static const char* const kFormatters[] = {
      "formatSuggestV1",     "formatSerializersV1",      "formatAggregatorsV1",
      "formatVersionV1",     "formatDropCachesV1",       "formatConfigV1",
      "formatQueryV1",
      "formatLastPointQueryV1", "formatUidAssignV1",     "formatUidMetaV1",
      "formatTSMetaV1",      "formatTSMetaListV1",       "formatAnnotationV1",
      "formatAnnotationsV1", "formatAnnotationBulkDeleteV1", "formatStatsV1",
      "formatThreadStatsV1", "formatQueryStatsV1",       "formatFilterConfigV1",
      "formatSearchResultsV1"};
  static const char* const kParsers[] = {
      "parsePutV1",          "parseSuggestV1",        "parseUidAssignV1",
      "parseQueryV1",        "parseLastPointQueryV1", "parseUidMetaV1",
      "parseTSMetaV1",       "parseAnnotationV1",     "parseAnnotationsV1",
      "parseAnnotationBulkDeleteV1", "parseSearchQueryV1"};
  std::string out = "[{\"formatters\":[";
  bool first = true;
  for (const char* f : kFormatters) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(f, &out);
  }
  out.append("],\"serializer\":\"json\",\"request_content_type\":\"application/json\",\"parsers\":[");
  first = true;
  for (const char* p : kParsers) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(p, &out);
  }
  out.append("],\"class\":\"net.opentsdb.tsd.HttpJsonSerializer\",\"response_content_type\":");
  AppendJsonString(http::kJsonContentType, &out);
  out.append(",\"version\":\"2.4.1\",\"shortName\":\"json\"}]");
  return out;
}

}  // namespace

void RegisterStatsRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet, Method::kPost}, "/api/stats/query", [ctx](Request, ResponderPtr r) {
    r->Send(Reply::Json(ctx->queries != nullptr ? ctx->queries->Json()
                                                : R"({"running":[],"completed":[]})"));
  });
  router->Add({Method::kGet, Method::kPost}, "/api/stats/threads",
              [ctx](Request, ResponderPtr r) {
                // Reading /proc is file I/O: off the I/O thread.
                ctx->workers->Submit([r = std::move(r)] { r->Send(Reply::Json(ThreadsJson())); });
              });
  router->Add({Method::kGet, Method::kPost}, "/api/stats/jvm", [](Request, ResponderPtr r) {
    r->Send(Reply::Error(404, "Sundial does not run on a JVM",
                         "Process figures are in /api/stats, /api/stats/threads and /metrics"));
  });
  router->Add({Method::kGet, Method::kPost}, "/api/stats/region_clients",
              [](Request, ResponderPtr r) {
                r->Send(Reply::Error(404, "Sundial has no HBase region clients",
                                     "Storage figures are in /api/stats and /metrics"));
              });
  router->Add({Method::kGet}, "/api/serializers",
              [](Request, ResponderPtr r) { r->Send(Reply::Json(SerializersJson())); });
}

}  // namespace sundial::server
