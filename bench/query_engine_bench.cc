// query_engine_bench: in-process cost of the query engine (no HTTP), over a
// data directory written by sundiald (stop the server first: the data dir
// is locked while it runs). Runs the three queries of query_bench and
// prints the mean and p50 time per query and the points read per second.
//
//   query_engine_bench --data-dir=DIR [--iterations=200 --data-start=1700000000
//                      --query=abc (only these queries) --cache=BYTES (bucket cache; 0 = off)]
//
// With --parse-only (no data dir needed) it times only the GET parameter
// parsing of each query (ParseQueryParams into a fresh QuerySpec, which is
// all the server's ParseQuery does for a GET, destruction included) and
// prints ns per parse: the median and the minimum over --runs runs of
// --iterations parses each (defaults 9 and 200000), wall clock and thread
// CPU time.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "sundial/query/query_engine.h"
#include "sundial/storage/storage.h"

namespace {

class CountingSink final : public sundial::query::ChunkSink {
 public:
  bool Write(std::string&& chunk) override {
    bytes += chunk.size();
    return true;
  }
  size_t bytes = 0;
};

using Queries = std::vector<std::pair<const char*, sundial::query::ParamList>>;

// The three queries of query_bench, for data written from `s` on.
Queries BenchQueries(long long s) {
  const long long h = s + 3599;
  std::string eight;
  for (int i = 0; i < 8; ++i) eight += (i ? "|host_" : "host_") + std::to_string(i);
  return {
      {"a", {{"start", std::to_string(s)}, {"end", std::to_string(h)},
             {"m", "max:1m-max:cpu.usage_user{host=host_0}"}}},
      {"b", {{"start", std::to_string(h - 12 * 3600 + 1)}, {"end", std::to_string(h)},
             {"m", "max:1m-max:cpu.usage_user{}{host=" + eight + "}"}}},
      {"c", {{"start", std::to_string(h - 86400 + 1)}, {"end", std::to_string(h)},
             {"m", "avg:1h-avg:cpu.usage_user{host=*}"}}},
  };
}

double ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// --parse-only: ns per ParseQueryParams call for each query.
int RunParseOnly(const Queries& queries, const std::string& only, int runs, int iterations) {
  std::printf("%-5s %12s %12s %12s %12s\n", "query", "p50_ns", "min_ns", "cpu_p50_ns",
              "cpu_min_ns");
  for (const auto& [name, params] : queries) {
    if (only.find(name) == std::string::npos) continue;
    std::vector<double> wall, cpu;
    for (int r = 0; r < runs; ++r) {
      size_t n_queries = 0;
      const double c0 = ThreadCpuNs();
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < iterations; ++i) {
        sundial::query::QuerySpec spec;
        const sundial::Status st = sundial::query::ParseQueryParams(params, 1700100000000, &spec);
        if (!st.ok()) {
          std::fprintf(stderr, "%s: %s\n", name, st.ToString().c_str());
          return 1;
        }
        n_queries += spec.queries.size();
      }
      const double ns =
          std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      cpu.push_back((ThreadCpuNs() - c0) / iterations);
      wall.push_back(ns / iterations);
      if (n_queries != static_cast<size_t>(iterations)) return 1;  // keeps the loop honest
    }
    std::printf("%-5s %12.1f %12.1f %12.1f %12.1f\n", name, Median(wall),
                *std::min_element(wall.begin(), wall.end()), Median(cpu),
                *std::min_element(cpu.begin(), cpu.end()));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  int iterations = 200;
  long long s = 1700000000;
  std::string only = "abc";
  size_t cache_bytes = 0;
  bool parse_only = false;
  int runs = 9;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--data-dir=", 0) == 0) dir = a.substr(11);
    else if (a == "--parse-only") parse_only = true;
    else if (a.rfind("--runs=", 0) == 0) runs = std::max(1, std::atoi(a.c_str() + 7));
    else if (a.rfind("--iterations=", 0) == 0) iterations = std::atoi(a.c_str() + 13);
    else if (a.rfind("--data-start=", 0) == 0) s = std::atoll(a.c_str() + 13);
    else if (a.rfind("--query=", 0) == 0) only = a.substr(8);
    else if (a.rfind("--cache=", 0) == 0) cache_bytes = std::strtoull(a.c_str() + 8, nullptr, 10);
  }
  const Queries queries = BenchQueries(s);
  if (parse_only) {
    const bool iterations_given = std::any_of(argv + 1, argv + argc, [](const char* a) {
      return std::string(a).rfind("--iterations=", 0) == 0;
    });
    return RunParseOnly(queries, only, runs, iterations_given ? std::max(1, iterations) : 200000);
  }
  if (dir.empty()) {
    std::fprintf(stderr,
                 "usage: query_engine_bench --data-dir=DIR [--iterations=N] | --parse-only\n");
    return 2;
  }
  sundial::storage::StorageOptions so;
  so.data_dir = dir;
  std::unique_ptr<sundial::query::BucketCache> cache;
  if (cache_bytes > 0) {
    cache = std::make_unique<sundial::query::BucketCache>(cache_bytes);
    so.late_observer = cache.get();
  }
  std::unique_ptr<sundial::storage::Storage> st;
  sundial::Status status = sundial::storage::Storage::Open(so, &st);
  if (!status.ok()) {
    std::fprintf(stderr, "open: %s\n", status.ToString().c_str());
    return 1;
  }
  const sundial::query::QueryEngine engine(st.get(), {}, nullptr, cache.get());
  std::printf("%-5s %10s %10s %10s\n", "query", "mean_us", "p50_us", "bytes");
  for (const auto& [name, params] : queries) {
    if (only.find(name) == std::string::npos) continue;
    std::vector<double> us;
    size_t bytes = 0;
    for (int i = 0; i < iterations; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      sundial::query::QuerySpec spec;
      status = sundial::query::ParseQueryParams(params, 1700100000000, &spec);
      CountingSink sink;
      if (status.ok()) status = engine.Execute(spec, &sink);
      us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      if (!status.ok()) {
        std::fprintf(stderr, "%s: %s\n", name, status.ToString().c_str());
        return 1;
      }
      bytes = sink.bytes;
    }
    double sum = 0;
    for (double u : us) sum += u;
    std::sort(us.begin(), us.end());
    std::printf("%-5s %10.1f %10.1f %10zu\n", name, sum / us.size(), us[us.size() / 2], bytes);
  }
  // The storage share: decoding every point of the metric's series once.
  const auto ids = st->SeriesOfMetric("cpu.usage_user");
  const auto t0 = std::chrono::steady_clock::now();
  size_t points = 0;
  for (int i = 0; i < 20; ++i) {
    for (sundial::SeriesId id : ids) {
      auto it = st->NewIterator(id, (s - s % 3600) * 1000, (s + 7200) * 1000);
      while (it->Next()) ++points;
    }
  }
  const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  std::printf("raw scan of %zu series: %.1f us per pass, %.1f ns per point (%zu points per pass)\n",
              ids.size(), us / 20, us * 1000 / static_cast<double>(points), points / 20);
  return 0;
}
