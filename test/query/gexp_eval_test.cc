#include "sundial/query/gexp_eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace sundial::query {
namespace {

GexpSeries Series(const std::string& host, std::vector<double> values, Timestamp step = 10000) {
  GexpSeries s;
  s.metric = "sys.cpu";
  if (!host.empty()) s.tags = {{"host", host}};
  for (size_t i = 0; i < values.size(); ++i) s.ts.push_back(static_cast<Timestamp>(i) * step);
  s.values = std::move(values);
  return s;
}

// Parses text and evaluates its outermost call over inputs.
Status Eval(const std::string& text, std::vector<GexpSet> inputs, GexpSet* out,
            Timestamp start = 0, Timestamp end = 1000000) {
  GexpNode n;
  SUNDIAL_RETURN_IF_ERROR(ParseGexp(text, &n));
  return EvaluateGexpCall(n, std::move(inputs), start, end, ExpEvalLimits{}, out);
}

TEST(GexpEval, ScaleAndAbsolute) {
  GexpSet out;
  ASSERT_TRUE(Eval("scale(sum:m,2.5)", {{Series("a", {1, -2, 4})}}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values, (std::vector<double>{2.5, -5, 10}));
  ASSERT_TRUE(Eval("absolute(sum:m)", {{Series("a", {1, -2, -0.5})}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{1, 2, 0.5}));
  EXPECT_EQ(Eval("scale(sum:m,x)", {{Series("a", {1})}}, &out).message(),
            "scale: unparseable scaling factor: x");
  EXPECT_EQ(Eval("scale(sum:m)", {{Series("a", {1})}}, &out).message(),
            "scale: missing the scaling factor");
}

TEST(GexpEval, AliasSubstitutesTagsAndDropsThem) {
  GexpSet out;
  GexpSeries s = Series("web01", {1});
  s.tags.emplace_back("x", "y");
  s.aggregated_tags = {"dc"};
  ASSERT_TRUE(Eval("alias(sum:m,'@host cpu @x@host')", {{s}}, &out).ok());
  EXPECT_EQ(out[0].metric, "web01 cpu yweb01");
  EXPECT_TRUE(out[0].tags.empty());
  EXPECT_TRUE(out[0].aggregated_tags.empty());
  // Parameters are joined with ',' (Alias's COMMA_JOINER).
  ASSERT_TRUE(Eval("alias(sum:m,,a,,b)", {{Series("h", {1})}}, &out).ok());
  EXPECT_EQ(out[0].metric, "a,b");
}

TEST(GexpEval, MovingAverageByPoints) {
  // The mean of the last 2 points, this one included; 0 until 2 are seen.
  GexpSet out;
  ASSERT_TRUE(Eval("movingAverage(sum:m,2)", {{Series("a", {1, 2, 3, 4})}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{0, 1.5, 2.5, 3.5}));
  // NaNs are skipped and do not count.
  ASSERT_TRUE(Eval("movingAverage(sum:m,2)", {{Series("a", {1, NAN, 3, 5})}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{0, 0, 2, 4}));
}

TEST(GexpEval, MovingAverageByTime) {
  // Points every 10 s, window '20s': the points newer than t - 20 s, once
  // a point 20 s old exists; the first point is 0.
  GexpSet out;
  ASSERT_TRUE(Eval("movingAverage(sum:m,'20s')", {{Series("a", {1, 2, 3, 4})}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{0, 0, 2.5, 3.5}));
  ASSERT_TRUE(
      Eval("movingAverage(sum:m,'1min')", {{Series("a", {1, 2, 3, 4, 5, 6, 7, 8})}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{0, 0, 0, 0, 0, 0, 4.5, 5.5}));
  EXPECT_EQ(Eval("movingAverage(sum:m,'5y')", {{Series("a", {1})}}, &out).message(),
            "movingAverage: invalid moving window parameter: '5y'");
  EXPECT_EQ(Eval("movingAverage(sum:m,0)", {{Series("a", {1})}}, &out).message(),
            "movingAverage: moving average window must be an integer greater than zero");
  EXPECT_EQ(Eval("movingAverage(sum:m,5min)", {{Series("a", {1})}}, &out).message(),
            "movingAverage: unparseable window size: 5min");
}

// OpenTSDB's MovingAverageAggregator as written: a list of the points,
// newest first, walked back at every point.
std::vector<double> ReferenceMovingAverage(const GexpSeries& s, int64_t window, bool is_time) {
  std::deque<std::pair<Timestamp, double>> list;
  std::vector<double> out;
  for (size_t i = 0; i < s.ts.size(); ++i) {
    list.emplace_front(s.ts[i], s.values[i]);
    if (is_time && i == 0) {
      out.push_back(0);
      continue;
    }
    double sum = 0;
    int64_t count = 0, span = 0;
    bool met = false;
    for (size_t j = 0; j < list.size(); ++j) {
      if (is_time && j > 0) {
        span += list[j - 1].first - list[j].first;
        if (span >= window) {
          met = true;
          break;
        }
      }
      if (!std::isnan(list[j].second)) {
        sum += list[j].second;
        ++count;
      }
      if (!is_time && count >= window) {
        met = true;
        break;
      }
    }
    out.push_back(met && count > 0 ? sum / static_cast<double>(count) : 0.0);
  }
  return out;
}

TEST(GexpEval, MovingAverageMatchesTheListWalk) {
  uint64_t seed = std::random_device{}();
  if (const char* env = std::getenv("SUNDIAL_SEED")) seed = std::strtoull(env, nullptr, 10);
  std::printf("GexpEval seed: %llu (replay with SUNDIAL_SEED)\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    GexpSeries s;
    Timestamp t = 0;
    const int n = static_cast<int>(rng() % 60);
    for (int i = 0; i < n; ++i) {
      t += 1 + static_cast<Timestamp>(rng() % 20000);
      s.ts.push_back(t);
      s.values.push_back(rng() % 5 == 0 ? NAN : static_cast<double>(rng() % 1000) / 8);
    }
    const bool is_time = rng() % 2 == 0;
    const int64_t window = is_time ? 1000 * (1 + static_cast<int64_t>(rng() % 60))
                                   : 1 + static_cast<int64_t>(rng() % 8);
    const std::string w =
        is_time ? "'" + std::to_string(window / 1000) + "sec'" : std::to_string(window);
    GexpSet out;
    ASSERT_TRUE(Eval("movingAverage(sum:m," + w + ")", {{s}}, &out).ok());
    const std::vector<double> want = ReferenceMovingAverage(s, window, is_time);
    ASSERT_EQ(out[0].values.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_NEAR(out[0].values[i], want[i], 1e-9 * (1 + std::fabs(want[i])))
          << "seed " << seed << " round " << round << " point " << i << " window " << w;
    }
  }
}

TEST(GexpEval, HighestCurrentAndMax) {
  GexpSet out;
  const GexpSet in = {Series("a", {9, 1}), Series("b", {2, 3}), Series("c", {5, 2})};
  ASSERT_TRUE(Eval("highestCurrent(sum:m,2)", {in}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tags[0].second, "b");  // last 3
  EXPECT_EQ(out[1].tags[0].second, "c");  // last 2
  ASSERT_TRUE(Eval("highestMax(sum:m,1)", {in}, &out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tags[0].second, "a");  // max 9
  // Only points within [start, end] count: up to t=0, a's 9 is current.
  ASSERT_TRUE(Eval("highestCurrent(sum:m,1)", {in}, &out, 0, 5000).ok());
  EXPECT_EQ(out[0].tags[0].second, "a");
  // More than there are: all of them.
  ASSERT_TRUE(Eval("highestMax(sum:m,10)", {in}, &out).ok());
  EXPECT_EQ(out.size(), 3u);
  EXPECT_EQ(Eval("highestMax(sum:m,0)", {in}, &out).message(),
            "highestMax: top n value must be greater than zero: 0");
  EXPECT_EQ(Eval("highestMax(sum:m,-1)", {in}, &out).message(),
            "highestMax: unparseable top n value: -1");
}

TEST(GexpEval, TimeShift) {
  GexpSet out;
  ASSERT_TRUE(Eval("timeShift(sum:m,'1day')", {{Series("a", {1, 2})}}, &out).ok());
  EXPECT_EQ(out[0].ts, (std::vector<Timestamp>{86400000, 86410000}));
  EXPECT_EQ(out[0].values, (std::vector<double>{1, 2}));
  int64_t ms = 0;
  GexpNode n;
  ASSERT_TRUE(ParseGexp("timeShift(sum:m,'2weeks')", &n).ok());
  ASSERT_TRUE(GexpTimeShift(n, &ms).ok());
  EXPECT_EQ(ms, int64_t{14} * 86400000);
  EXPECT_EQ(Eval("timeShift(sum:m,1d)", {{Series("a", {1})}}, &out).message(),
            "timeShift: invalid timeshift parameter: 1d (e.g. '10min')");
}

TEST(GexpEval, CombineJoinsOnTagsAsUnion) {
  // a: web01, web02; b: web01 only, with a gap at t=10 s.
  GexpSeries b = Series("web01", {4, 8});
  b.metric = "sys.b";
  b.ts = {0, 20000};
  const GexpSet a = {Series("web01", {2, 4, 6}), Series("web02", {1, 1, 1})};
  GexpSet out;
  ASSERT_TRUE(Eval("divideSeries(sum:a,sum:b)", {a, {b}}, &out).ok());
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].metric, "sys.b");  // the first metric name in order
  EXPECT_EQ(out[0].tags[0].second, "web01");
  EXPECT_EQ(out[0].values, (std::vector<double>{0.5, 0, 0.75}));  // x / 0 is 0
  EXPECT_EQ(out[1].values, (std::vector<double>{0, 0, 0}));      // no b: 1 / 0
  ASSERT_TRUE(Eval("sumSeries(sum:a,sum:b)", {a, {b}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{6, 4, 14}));
  ASSERT_TRUE(Eval("diffSeries(sum:a,sum:b)", {a, {b}}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{-2, 4, -2}));
  ASSERT_TRUE(Eval("multiplySeries(sum:a,sum:b,sum:c)", {a, {b}, a}, &out).ok());
  EXPECT_EQ(out[0].values, (std::vector<double>{16, 0, 288}));
  EXPECT_EQ(Eval("sumSeries(sum:a)", {a}, &out).message(),
            "sumSeries: must have 2 to 26 series, got 1 instead");
}

TEST(GexpEval, NeedsAnInput) {
  GexpSet out;
  EXPECT_EQ(Eval("absolute()", {}, &out).message(),
            "absolute: needs a metric query or a function as its input");
}

}  // namespace
}  // namespace sundial::query
