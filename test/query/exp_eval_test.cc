#include "sundial/query/exp_eval.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace sundial::query {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr Timestamp T = 1431561600000;  // OpenTSDB's test base time (ms)
constexpr Timestamp kStep = 60000;

ExpSeries Series(std::vector<std::pair<std::string, std::string>> tags,
                 std::vector<double> values, std::vector<std::string> agg = {},
                 const std::string& metric = "m") {
  ExpSeries s;
  s.tags = std::move(tags);
  s.aggregated_tags = std::move(agg);
  s.metrics = {metric};
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isinf(values[i])) continue;  // +Inf marks "no point here"
    s.ts.push_back(T + static_cast<Timestamp>(i) * kStep);
    s.values.push_back(values[i]);
  }
  return s;
}
constexpr double kGap = std::numeric_limits<double>::infinity();

Status Eval(const std::string& expr, std::vector<const ExpSet*> vars, ExpJoinSpec join,
           ExpSet* out, double fill = kNaN, ExpEvalLimits limits = {}) {
  ExprProgram p;
  Status s = ExprProgram::Parse(expr, &p);
  if (!s.ok()) return s;
  return EvaluateExpression(p, vars, join, fill, limits, out);
}

std::string HostOf(const ExpSeries& s) {
  for (const auto& [k, v] : s.tags) {
    if (k == "host") return v;
  }
  return "";
}

// OpenTSDB's "D=*" data sets: two series per metric, tagged D=E and D=F.
TEST(EvaluateExpression, IntersectionOfMatchingSeries) {
  ExpSet a, b;
  a.series = {Series({{"D", "E"}}, {1, 2, 3}, {}, "A"), Series({{"D", "F"}}, {4, 5, 6}, {}, "A")};
  b.series = {Series({{"D", "E"}}, {11, 12, 13}, {}, "B"), Series({{"D", "F"}}, {14, 15, 16}, {}, "B")};
  ExpJoinSpec join;
  join.intersection = true;
  ExpSet out;
  ASSERT_TRUE(Eval("a / b", {&a, &b}, join, &out).ok());
  ASSERT_EQ(out.series.size(), 2u);
  // TestExpressionIterator.aDivideB's figures.
  EXPECT_NEAR(out.series[0].values[0], 0.0909, 0.0001);
  EXPECT_NEAR(out.series[1].values[0], 0.2857, 0.0001);
  EXPECT_NEAR(out.series[0].values[1], 0.1666, 0.0001);
  EXPECT_NEAR(out.series[1].values[1], 0.3333, 0.0001);
  EXPECT_EQ(out.series[0].ts, (std::vector<Timestamp>{T, T + kStep, T + 2 * kStep}));
  EXPECT_EQ(out.series[0].metrics, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(out.series[1].tags, (std::vector<std::pair<std::string, std::string>>{{"D", "F"}}));
}

// Union keeps every tag set; a variable without the series counts as 0.
TEST(EvaluateExpression, UnionWithMismatchedTags) {
  ExpSet a, b;
  a.series = {Series({{"host", "web01"}}, {1, 2}), Series({{"host", "web02"}}, {3, 4})};
  b.series = {Series({{"host", "web01"}}, {10, 20}), Series({{"host", "web03"}}, {30, 40})};
  ExpSet out;
  ASSERT_TRUE(Eval("a + b", {&a, &b}, ExpJoinSpec(), &out).ok());
  ASSERT_EQ(out.series.size(), 3u);
  EXPECT_EQ(HostOf(out.series[0]), "web01");
  EXPECT_EQ(out.series[0].values, (std::vector<double>{11, 22}));
  EXPECT_EQ(HostOf(out.series[1]), "web02");
  EXPECT_EQ(out.series[1].values, (std::vector<double>{3, 4}));
  EXPECT_EQ(HostOf(out.series[2]), "web03");
  EXPECT_EQ(out.series[2].values, (std::vector<double>{30, 40}));
  ExpJoinSpec inter;
  inter.intersection = true;
  ASSERT_TRUE(Eval("a + b", {&a, &b}, inter, &out).ok());
  ASSERT_EQ(out.series.size(), 1u);
  EXPECT_EQ(out.series[0].values, (std::vector<double>{11, 22}));
}

TEST(EvaluateExpression, NoIntersectionIsAnError) {
  ExpSet a, b, empty;
  a.series = {Series({{"host", "web01"}}, {1})};
  b.series = {Series({{"host", "web02"}}, {2})};
  ExpJoinSpec join;
  join.intersection = true;
  ExpSet out;
  const Status s = Eval("a + b", {&a, &b}, join, &out);
  EXPECT_EQ(s.message(), "No intersections found: expression [a + b]");
  // With no series at all there is nothing to intersect: no error.
  ASSERT_TRUE(Eval("a + b", {&empty, &empty}, join, &out).ok());
  EXPECT_TRUE(out.series.empty());
  EXPECT_FALSE(Eval("a + b", {&a, &empty}, join, &out).ok());
}

// TestExpressionIterator.aPlusBMissingPointsDefaultFillZero and
// ...FillInfectiousNaN: gaps take the metric's fill value (0 by default).
TEST(EvaluateExpression, MissingPointsTakeTheFill) {
  ExpSet a, b;
  a.series = {Series({{"D", "E"}}, {1, kGap, 7})};
  b.series = {Series({{"D", "E"}}, {kGap, 5, 9})};
  ExpSet out;
  ASSERT_TRUE(Eval("a + b", {&a, &b}, ExpJoinSpec(), &out).ok());
  EXPECT_EQ(out.series[0].values, (std::vector<double>{1, 5, 16}));
  a.fill = b.fill = kNaN;
  ASSERT_TRUE(Eval("a + b", {&a, &b}, ExpJoinSpec(), &out).ok());
  EXPECT_TRUE(std::isnan(out.series[0].values[0]));
  EXPECT_TRUE(std::isnan(out.series[0].values[1]));
  EXPECT_EQ(out.series[0].values[2], 16);
  a.fill = b.fill = 100;  // scalar
  ASSERT_TRUE(Eval("a + b", {&a, &b}, ExpJoinSpec(), &out).ok());
  EXPECT_EQ(out.series[0].values, (std::vector<double>{101, 105, 16}));
  // A NaN value is replaced by the fill as well.
  a.series = {Series({{"D", "E"}}, {kNaN, 2, 3})};
  ASSERT_TRUE(Eval("a", {&a}, ExpJoinSpec(), &out).ok());
  EXPECT_EQ(out.series[0].values, (std::vector<double>{100, 2, 3}));
}

TEST(EvaluateExpression, JoinKeyOptions) {
  ExpSet a, b;
  a.series = {Series({{"dc", "lga"}, {"host", "web01"}}, {1}, {"cpu"})};
  a.query_tagks = {"host"};
  b.series = {Series({{"host", "web01"}}, {2})};
  b.query_tagks = {"host"};
  ExpJoinSpec join;
  ExpSet out;
  ASSERT_TRUE(Eval("a + b", {&a, &b}, join, &out).ok());
  EXPECT_EQ(out.series.size(), 2u);  // different tag sets
  join.use_query_tags = true;        // only "host" counts, but a has an aggregated tag
  ASSERT_TRUE(Eval("a + b", {&a, &b}, join, &out).ok());
  EXPECT_EQ(out.series.size(), 2u);
  join.include_agg_tags = false;
  ASSERT_TRUE(Eval("a + b", {&a, &b}, join, &out).ok());
  ASSERT_EQ(out.series.size(), 1u);
  EXPECT_EQ(out.series[0].values, (std::vector<double>{3}));
  EXPECT_EQ(out.series[0].aggregated_tags, (std::vector<std::string>{"cpu"}));
  EXPECT_EQ(out.series[0].tags.size(), 2u);  // from the first variable
}

// Series without tags join on the empty key, whatever they aggregate.
TEST(EvaluateExpression, UntaggedSeriesJoin) {
  ExpSet a, b;
  a.series = {Series({}, {1, 2}, {"host"})};
  b.series = {Series({}, {3, 4})};
  ExpJoinSpec join;
  join.intersection = true;
  ExpSet out;
  ASSERT_TRUE(Eval("a * b", {&a, &b}, join, &out).ok());
  ASSERT_EQ(out.series.size(), 1u);
  EXPECT_EQ(out.series[0].values, (std::vector<double>{3, 8}));
}

TEST(EvaluateExpression, TimestampsAreTheUnion) {
  ExpSet a, b;
  a.series = {Series({{"h", "x"}}, {1, kGap, 3})};
  b.series = {Series({{"h", "y"}}, {kGap, 2, kGap})};
  ExpSet out;
  ASSERT_TRUE(Eval("a - b", {&a, &b}, ExpJoinSpec(), &out).ok());
  ASSERT_EQ(out.series.size(), 2u);
  EXPECT_EQ(out.series[0].ts.size(), 3u);
  EXPECT_EQ(out.series[0].values, (std::vector<double>{1, 0, 3}));
  EXPECT_EQ(out.series[1].values, (std::vector<double>{0, -2, 0}));
}

TEST(EvaluateExpression, Limits) {
  ExpSet a;
  a.series = {Series({{"h", "x"}}, {1, 2, 3}), Series({{"h", "y"}}, {1, 2, 3})};
  ExpEvalLimits limits;
  limits.max_output_points = 5;
  ExpSet out;
  Status s = Eval("a * 2", {&a}, ExpJoinSpec(), &out, kNaN, limits);
  EXPECT_EQ(s.code(), Status::Code::kResourceExhausted);
  limits.max_output_points = 6;
  EXPECT_TRUE(Eval("a * 2", {&a}, ExpJoinSpec(), &out, kNaN, limits).ok());
  limits.max_memory = 32;
  EXPECT_EQ(Eval("a * 2", {&a}, ExpJoinSpec(), &out, kNaN, limits).code(),
            Status::Code::kResourceExhausted);
  ExpEvalLimits late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  late.deadline_ms = 5;
  s = Eval("a * 2", {&a}, ExpJoinSpec(), &out, kNaN, late);
  EXPECT_EQ(s.code(), Status::Code::kDeadlineExceeded);
  EXPECT_EQ(s.message(), "Query timed out: it ran longer than the limit of 5 ms (query.deadline)");
}

}  // namespace
}  // namespace sundial::query
