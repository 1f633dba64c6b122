#include "sundial/rollup/hour_stats.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace sundial::rollup {
namespace {

using testing::Reference;
using testing::SameDouble;

constexpr RollupFn kFns[] = {RollupFn::kSum,  RollupFn::kCount, RollupFn::kMin, RollupFn::kMax,
                             RollupFn::kAvg,  RollupFn::kFirst, RollupFn::kLast};

TEST(HourStats, FloorsToUtcHoursAndDays) {
  EXPECT_EQ(HourOf(3600000), 3600000);
  EXPECT_EQ(HourOf(3599999), 0);
  EXPECT_EQ(HourOf(-1), -3600000);
  EXPECT_EQ(DayOf(86400000 + 5), 86400000);
  EXPECT_EQ(DayOf(-1), -86400000);
}

TEST(HourStats, AddKeepsRunningMinMaxLikeTheRawPath) {
  HourStats h;
  const double nan = std::nan("");
  h.Add(1, nan);
  h.Add(2, 5);
  h.Add(3, -0.0);
  h.Add(4, 0.0);
  EXPECT_EQ(h.count, 4u);
  EXPECT_EQ(h.nan_count, 1u);
  EXPECT_EQ(h.valid(), 3u);
  EXPECT_TRUE(std::isnan(h.first));
  EXPECT_EQ(h.last, 0.0);
  EXPECT_TRUE(std::signbit(h.min_run));  // the first of the equal zeros stays
  EXPECT_EQ(h.max_run, 5);
  EXPECT_EQ(h.sum, 5);
  EXPECT_TRUE(h.integral);
  h.Add(5, 0.5);
  EXPECT_FALSE(h.integral);
}

// Random hours combined into buckets agree bit for bit with the raw
// reference whenever the combiner says it is exact; single hours always.
TEST(BucketCombiner, MatchesTheRawReference) {
  std::mt19937_64 rng(testing::TestSeed());
  for (int round = 0; round < 2000; ++round) {
    const int hours = 1 + static_cast<int>(rng() % 5);
    const int mode = static_cast<int>(rng() % 4);  // ints, decimals, floats, mixed+NaN
    std::vector<double> all;
    std::vector<HourStats> stats;
    for (int h = 0; h < hours; ++h) {
      HourStats s;
      s.hour = h * kHourMs;
      const int n = static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) {
        double v = 0;
        switch (mode) {
          case 0: v = static_cast<double>(static_cast<int64_t>(rng() % 2001) - 1000); break;
          case 1: v = static_cast<double>(static_cast<int64_t>(rng() % 20001) - 10000) / 100; break;
          case 2: v = std::ldexp(static_cast<double>(rng() % 1000000), -static_cast<int>(rng() % 40)); break;
          default: v = (rng() % 7 == 0) ? std::nan("") : static_cast<double>(rng() % 100) * 0.1; break;
        }
        s.Add(s.hour + i, v);
        all.push_back(v);
      }
      stats.push_back(s);
    }
    if (all.empty()) continue;
    for (RollupFn fn : kFns) {
      BucketCombiner c(fn);
      int nonempty = 0;
      for (const HourStats& s : stats) {
        c.Add(s);
        nonempty += s.empty() ? 0 : 1;
      }
      ASSERT_FALSE(c.empty());
      if (nonempty == 1 || mode == 0) {
        ASSERT_TRUE(c.Exact()) << "round " << round;
      }
      if (!c.Exact()) continue;
      ASSERT_TRUE(SameDouble(c.Result(), Reference(fn, all)))
          << "round " << round << " fn " << static_cast<int>(fn) << ": " << c.Result() << " vs "
          << Reference(fn, all);
    }
  }
}

TEST(BucketCombiner, HugeIntegersAreNotSummedAcrossHours) {
  HourStats a, b;
  a.hour = 0;
  b.hour = kHourMs;
  a.Add(0, 9007199254740990.0);
  b.Add(kHourMs, 3.0);
  BucketCombiner c(RollupFn::kSum);
  c.Add(a);
  c.Add(b);
  EXPECT_FALSE(c.Exact());
  BucketCombiner m(RollupFn::kMax);
  m.Add(a);
  m.Add(b);
  EXPECT_TRUE(m.Exact());
  EXPECT_EQ(m.Result(), 9007199254740990.0);
}

}  // namespace
}  // namespace sundial::rollup
