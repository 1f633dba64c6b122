// query_gexp_bench: cost of the /api/query/gexp functions (EvaluateGexpCall)
// without storage: N series per argument, P points each, 10 s apart.
// Prints ns per input point and input points per second for each function.
//
//   build/bench/query_gexp_bench [--series=100] [--points=8640] [--rounds=5]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sundial/query/gexp_eval.h"
#include "sundial/query/gexp_parser.h"

namespace {

using sundial::query::GexpNode;
using sundial::query::GexpSet;

long Flag(int argc, char** argv, const char* name, long def) {
  const size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') return std::atol(argv[i] + n + 1);
  }
  return def;
}

GexpSet MakeSet(long series, long points, int var) {
  GexpSet s(static_cast<size_t>(series));
  for (long i = 0; i < series; ++i) {
    auto& e = s[static_cast<size_t>(i)];
    e.metric = var == 0 ? "a" : "b";
    e.tags = {{"host", "h" + std::to_string(i)}};
    for (long p = 0; p < points; ++p) {
      e.ts.push_back(1700000000000 + p * 10000);
      e.values.push_back(static_cast<double>((p * 31 + i) % 1000) + var);
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const long series = Flag(argc, argv, "--series", 100);
  const long points = Flag(argc, argv, "--points", 8640);
  const long rounds = Flag(argc, argv, "--rounds", 5);
  const GexpSet a = MakeSet(series, points, 0), b = MakeSet(series, points, 1);
  std::printf("query_gexp_bench: %ld series x %ld points per argument, best of %ld rounds\n",
              series, points, rounds);
  const char* exprs[] = {"scale(sum:a,,2)",          "movingAverage(sum:a,,10)",
                         "movingAverage(sum:a,,'5min')", "highestMax(sum:a,,5)",
                         "sumSeries(sum:a,,sum:b)",  "divideSeries(sum:a,,sum:b)"};
  for (const char* text : exprs) {
    GexpNode call;
    if (!sundial::query::ParseGexp(text, &call).ok()) return 1;
    double best = 1e300;
    for (long r = 0; r < rounds; ++r) {
      std::vector<GexpSet> inputs = {a};
      if (call.inputs.size() > 1) inputs.push_back(b);
      GexpSet out;
      const auto t0 = std::chrono::steady_clock::now();
      const auto s = sundial::query::EvaluateGexpCall(call, std::move(inputs), 0, INT64_MAX,
                                                      sundial::query::ExpEvalLimits{}, &out);
      const double sec =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!s.ok()) {
        std::printf("%s: %s\n", text, s.message().c_str());
        return 1;
      }
      best = std::min(best, sec);
    }
    const double args = call.inputs.size() > 1 ? 2 : 1;
    const double in_points = static_cast<double>(series) * static_cast<double>(points) * args;
    std::printf("  %-32s %8.1f ms  %6.1f ns/input point  %6.1f M points/s\n", text, best * 1e3,
                best * 1e9 / in_points, in_points / best / 1e6);
  }
  return 0;
}
