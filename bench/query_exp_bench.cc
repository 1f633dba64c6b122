// query_exp_bench: cost of /api/query/exp's join and evaluation
// (EvaluateExpression) without storage: N series per variable, P points
// each, for a few expressions and both join operators. Prints ns per
// output point and output points per second.
//
//   build/bench/query_exp_bench [--series=100] [--points=8640] [--rounds=5]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sundial/query/exp_eval.h"
#include "sundial/query/exp_expr.h"

namespace {

using sundial::query::ExpJoinSpec;
using sundial::query::ExpSet;
using sundial::query::ExprProgram;

long Flag(int argc, char** argv, const char* name, long def) {
  const size_t n = std::strlen(name);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], name, n) == 0 && argv[i][n] == '=') return std::atol(argv[i] + n + 1);
  }
  return def;
}

// series series "host=h<i>", points points 10 s apart; every 7th point of
// variable b is missing, so the fill path is taken too.
ExpSet MakeSet(long series, long points, int var) {
  ExpSet s;
  s.series.resize(static_cast<size_t>(series));
  for (long i = 0; i < series; ++i) {
    auto& e = s.series[static_cast<size_t>(i)];
    e.tags = {{"host", "h" + std::to_string(i)}};
    e.metrics = {var == 0 ? "a" : "b"};
    for (long p = 0; p < points; ++p) {
      if (var == 1 && p % 7 == 3) continue;
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
  const ExpSet a = MakeSet(series, points, 0), b = MakeSet(series, points, 1);
  std::printf("query_exp_bench: %ld series x %ld points per variable, best of %ld rounds\n",
              series, points, rounds);
  const char* exprs[] = {"a + b", "a / b * 100", "a > b ? a - b : (b - a) / 2"};
  for (const char* text : exprs) {
    for (const bool intersection : {false, true}) {
      ExprProgram p;
      if (!ExprProgram::Parse(text, &p).ok()) return 1;
      ExpJoinSpec join;
      join.intersection = intersection;
      double best_ns = 1e300;
      uint64_t out_points = 0;
      for (long r = 0; r < rounds; ++r) {
        ExpSet out;
        const auto t0 = std::chrono::steady_clock::now();
        const auto s = sundial::query::EvaluateExpression(p, {&a, &b}, join, 0.0, {}, &out);
        const double ns = std::chrono::duration<double, std::nano>(
                              std::chrono::steady_clock::now() - t0).count();
        if (!s.ok()) return 1;
        out_points = 0;
        for (const auto& e : out.series) out_points += e.values.size();
        if (ns < best_ns) best_ns = ns;
      }
      std::printf("%-30s %-12s %9.1f ms  %6.1f ns/point  %6.1f M points/s\n", text,
                  intersection ? "intersection" : "union", best_ns / 1e6,
                  best_ns / static_cast<double>(out_points),
                  static_cast<double>(out_points) / best_ns * 1e3);
    }
  }
  return 0;
}
