#include "sundial/query/aggregator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace sundial::query {
namespace {

double Dbl(const char* name, std::vector<double> v) {
  const Aggregator* a = FindAggregator(name);
  EXPECT_NE(a, nullptr) << name;
  return RunDouble(*a, v.data(), v.size());
}
int64_t Lng(const char* name, std::vector<int64_t> v) {
  const Aggregator* a = FindAggregator(name);
  EXPECT_NE(a, nullptr) << name;
  return RunLong(*a, v.data(), v.size());
}

TEST(Aggregator, ThirtyFiveSortedNames) {
  size_t n = 0;
  const Aggregator* all = AllAggregators(&n);
  EXPECT_EQ(n, 35u);
  for (size_t i = 1; i < n; ++i) EXPECT_LT(all[i - 1].name, all[i].name);
  EXPECT_EQ(FindAggregator("squareSum")->fn, AggFn::kSquareSum);
  EXPECT_EQ(FindAggregator("SUM"), nullptr);
  EXPECT_EQ(FindAggregator("zimsum")->interp, Interpolation::kZim);
  EXPECT_EQ(FindAggregator("mimmax")->interp, Interpolation::kMin);
  EXPECT_EQ(FindAggregator("pfsum")->interp, Interpolation::kPrev);
}

TEST(Aggregator, FindsEveryNameAndOnlyThose) {
  size_t n = 0;
  const Aggregator* all = AllAggregators(&n);
  for (size_t i = 0; i < n; ++i) {
    const std::string name(all[i].name);
    EXPECT_EQ(FindAggregator(name), &all[i]) << name;
    EXPECT_EQ(FindAggregator(name + "x"), nullptr) << name;
    const std::string shorter = name.substr(0, name.size() - 1);  // "p99" of "p999" exists
    const Aggregator* a = FindAggregator(shorter);
    EXPECT_TRUE(a == nullptr || a->name == shorter) << name;
  }
  for (const char* none : {"", "e", "p", "zz", "\xff", "Avg", " sum"}) {
    EXPECT_EQ(FindAggregator(none), nullptr) << none;
  }
}

TEST(Aggregator, LongMath) {
  EXPECT_EQ(Lng("avg", {1, 2}), 1);  // truncating
  EXPECT_EQ(Lng("avg", {-1, -2}), -1);
  EXPECT_EQ(Lng("sum", {1, 2, 3}), 6);
  EXPECT_EQ(Lng("dev", {2, 4, 4, 4, 5, 5, 7, 9}), 2);
  EXPECT_EQ(Lng("dev", {7}), 0);
  EXPECT_EQ(Lng("median", {5, 1, 3, 2}), 3);  // upper median
  EXPECT_EQ(Lng("diff", {10, 4, 7}), -3);
  EXPECT_EQ(Lng("count", {10, 4, 7}), 3);
  EXPECT_EQ(Lng("first", {10, 4, 7}), 10);
  EXPECT_EQ(Lng("last", {10, 4, 7}), 7);
  EXPECT_EQ(Lng("squareSum", {3, 4}), 25);
  EXPECT_EQ(Lng("mult", {3, 4, -2}), -24);
  EXPECT_EQ(Lng("sum", {INT64_MAX, 1}), INT64_MIN);  // Java wraps
  EXPECT_EQ(Lng("p50", {1, 2, 3, 4}), 2);            // legacy: pos 2.5 -> 2.5 -> 2
  EXPECT_EQ(Lng("ep50r3", {1, 2, 3, 4}), 2);         // rint(2) = 2
  EXPECT_EQ(Lng("ep50r7", {1, 2, 3, 4}), 2);         // 2.5 -> 2
  EXPECT_EQ(Lng("p99", {1, 2, 3, 4}), 4);
}

TEST(Aggregator, DoubleMathSkipsNaN) {
  const double nan = std::nan("");
  EXPECT_DOUBLE_EQ(Dbl("sum", {1.5, nan, 2}), 3.5);
  EXPECT_TRUE(std::isnan(Dbl("sum", {nan, nan})));
  EXPECT_DOUBLE_EQ(Dbl("avg", {1, nan, 2}), 1.5);
  EXPECT_DOUBLE_EQ(Dbl("min", {nan, 3, 1}), 1);
  EXPECT_DOUBLE_EQ(Dbl("max", {nan, 3, 1}), 3);
  EXPECT_TRUE(std::isnan(Dbl("max", {nan})));
  EXPECT_DOUBLE_EQ(Dbl("count", {nan, 3, 1}), 2);
  EXPECT_TRUE(std::isnan(Dbl("mult", {2, nan})));
  EXPECT_DOUBLE_EQ(Dbl("dev", {nan, 2, 4, 4, 4, 5, 5, 7, 9}), 2);
  EXPECT_DOUBLE_EQ(Dbl("dev", {3, nan}), 0);
  EXPECT_DOUBLE_EQ(Dbl("diff", {nan, 1, 5}), 4);
  EXPECT_TRUE(std::isnan(Dbl("diff", {1, 5, nan})));
  EXPECT_DOUBLE_EQ(Dbl("median", {1, 2, 3, 4}), 3);
  EXPECT_DOUBLE_EQ(Dbl("p50", {1, 2, 3, 4}), 2.5);
  EXPECT_DOUBLE_EQ(Dbl("ep50r3", {1, 2, 3, 4}), 2.5);  // double path is always legacy
  EXPECT_DOUBLE_EQ(Dbl("p75", {1, 2, 3, 4}), 3.75);
  EXPECT_TRUE(std::isnan(Dbl("first", {nan, 2})));  // first is not NaN-aware
  EXPECT_DOUBLE_EQ(Dbl("last", {nan, 2}), 2);
}

}  // namespace
}  // namespace sundial::query
