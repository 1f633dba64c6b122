#include "query/query_limits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace sundial::query {
namespace {

class VectorSink final : public ChunkSink {
 public:
  bool Write(std::string&& chunk) override {
    pieces.push_back(std::move(chunk));
    return true;
  }
  std::vector<std::string> pieces;
};

TEST(QueryLimits, KnownOutputPointsOnlyWithFill) {
  QuerySpec spec;
  spec.start_ms = 0;
  spec.end_ms = 999;
  DownsampleSpec ds;
  ds.enabled = true;
  ds.interval_ms = 10;
  ds.fill = FillPolicy::kZero;
  EXPECT_EQ(KnownOutputPoints(spec, ds, 1), 100u);
  EXPECT_EQ(KnownOutputPoints(spec, ds, 3), 300u);
  EXPECT_EQ(KnownOutputPoints(spec, ds, 0), 0u);
  ds.fill = FillPolicy::kNone;
  EXPECT_EQ(KnownOutputPoints(spec, ds, 1), 0u);
  ds.fill = FillPolicy::kNaN;
  ds.all = true;
  EXPECT_EQ(KnownOutputPoints(spec, ds, 1), 0u);
  // 1 ms over the whole int64 range times many groups saturates.
  ds.all = false;
  ds.interval_ms = 1;
  spec.start_ms = INT64_MIN;
  spec.end_ms = INT64_MAX;
  EXPECT_EQ(KnownOutputPoints(spec, ds, 1000), UINT64_MAX);
}

TEST(QueryLimits, CheckKnownOutputNamesTheOption) {
  QueryLimits l;
  EXPECT_TRUE(CheckKnownOutput(l, UINT64_MAX).ok());
  l.max_output_points = 10;
  EXPECT_TRUE(CheckKnownOutput(l, 10).ok());
  const Status s = CheckKnownOutput(l, 11);
  EXPECT_TRUE(s.IsResourceExhausted());
  EXPECT_NE(s.message().find("limit of 10 data points (query.max_output_points)"),
            std::string::npos);
  l = {};
  l.max_output_bytes = 1500;  // 100 points of at least 15 bytes
  EXPECT_TRUE(CheckKnownOutput(l, 100).ok());
  EXPECT_NE(CheckKnownOutput(l, 101).message().find("query.max_output_bytes"), std::string::npos);
}

TEST(QueryLimits, CountingSinkStopsAtTheLimit) {
  VectorSink out;
  QueryBudget budget(BudgetLimits{});
  CountingSink sink(&out, 10, &budget);
  EXPECT_TRUE(sink.Write("12345"));
  EXPECT_TRUE(sink.Write("67890"));
  EXPECT_TRUE(budget.status().ok());
  EXPECT_FALSE(sink.Write("x"));
  EXPECT_TRUE(budget.status().IsResourceExhausted());
  EXPECT_EQ(out.pieces.size(), 2u);
}

TEST(QueryLimits, BudgetForSmallQueries) {
  QueryLimits l;
  l.max_points = 1000;
  l.max_output_points = 50;
  SmallQueryBound bound{4, 100, 2000};
  BudgetLimits b = BudgetFor(l, &bound);
  EXPECT_EQ(b.max_points, 100u);
  EXPECT_TRUE(b.points_limit_is_soft);
  EXPECT_EQ(b.max_output_points, 50u);  // the client's limit stays an error
  EXPECT_EQ(b.soft_output_points, 100u);
  EXPECT_EQ(b.soft_deadline_us, 2000);
  b = BudgetFor(l, nullptr);
  EXPECT_EQ(b.max_points, 1000u);
  EXPECT_FALSE(b.points_limit_is_soft);
  EXPECT_EQ(b.soft_output_points, 0u);
}

// The budget reads the clock on Tick() only every kCheckEvery units, and
// still stops a loop that does nothing but tick.
TEST(QueryLimits, TickChecksTheDeadline) {
  BudgetLimits l;
  l.deadline_ms = 20;
  QueryBudget budget(l);
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t n = 0;
  while (budget.Tick()) ++n;
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(20));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(budget.status().code(), Status::Code::kDeadlineExceeded);
  EXPECT_GT(n, QueryBudget::kCheckEvery);
}

TEST(QueryLimits, ReserveAndRelease) {
  BudgetLimits l;
  l.max_memory = 100;
  QueryBudget budget(l);
  EXPECT_TRUE(budget.Reserve(60));
  budget.Release(60);
  EXPECT_TRUE(budget.Reserve(100));
  EXPECT_FALSE(budget.Reserve(1));
  EXPECT_NE(budget.status().message().find("query.max_memory"), std::string::npos);
}

}  // namespace
}  // namespace sundial::query
