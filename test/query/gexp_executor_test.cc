#include "sundial/query/gexp_executor.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "mem_storage.h"

namespace sundial::query {
namespace {

using testing::MemStorage;

constexpr int64_t T = 1356998400;  // an hour boundary, seconds
constexpr Timestamp kNow = (T + 86400) * 1000;

class GexpExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const SeriesId a1 = st_.Add("sys.a", {{"host", "web01"}});
    const SeriesId a2 = st_.Add("sys.a", {{"host", "web02"}});
    const SeriesId b1 = st_.Add("sys.b", {{"host", "web01"}});
    for (int i = 0; i < 3; ++i) {
      st_.Put(a1, (T + 10 * i) * 1000, Value::Int(i));
      st_.Put(a2, (T + 10 * i) * 1000, Value::Int(10 + i));
      st_.Put(b1, (T + 10 * i) * 1000, Value::Float(0.5 * (i + 1)));
      // A day earlier, for timeShift.
      st_.Put(b1, (T - 86400 + 10 * i) * 1000, Value::Int(100 + i));
    }
  }
  // Runs the query string's parameters; returns the JSON or "ERROR <message>".
  std::string Run(const ParamList& extra, QueryLimits limits = {}) {
    ParamList params = {{"start", std::to_string(T)}, {"end", std::to_string(T + 60)}};
    params.insert(params.end(), extra.begin(), extra.end());
    GexpRequest req;
    Status s = ParseGexpRequest(params, kNow, &req);
    if (s.ok()) {
      QueryEngine engine(&st_, limits);
      std::string json;
      s = ExecuteGexpQuery(engine, req, &json);
      if (s.ok()) return json;
    }
    return "ERROR " + s.message();
  }
  static std::string S(int64_t sec) { return "\"" + std::to_string(sec) + "\""; }

  MemStorage st_;
};

TEST_F(GexpExecutorTest, ScaleKeepsTheQueryShape) {
  EXPECT_EQ(Run({{"exp", "scale(sum:sys.a{host=*},,2)"}}),
            R"([{"metric":"sys.a","tags":{"host":"web01"},"aggregateTags":[],"dps":{)" + S(T) +
                ":0.0," + S(T + 10) + ":2.0," + S(T + 20) +
                R"(:4.0}},{"metric":"sys.a","tags":{"host":"web02"},"aggregateTags":[],"dps":{)" +
                S(T) + ":20.0," + S(T + 10) + ":22.0," + S(T + 20) + ":24.0}}]");
}

TEST_F(GexpExecutorTest, SeveralExpressionsInOrderWithMs) {
  const std::string out = Run({{"exp", "alias(sum:sys.b,,'b of @host')"},
                               {"exp", "absolute(sum:sys.a)"},
                               {"ms", ""}});
  EXPECT_EQ(out, R"([{"metric":"b of web01","tags":{},"aggregateTags":[],"dps":{")" +
                     std::to_string(T * 1000) + R"(":0.5,")" + std::to_string((T + 10) * 1000) +
                     R"(":1.0,")" + std::to_string((T + 20) * 1000) +
                     R"(":1.5}},{"metric":"sys.a","tags":{},"aggregateTags":["host"],"dps":{")" +
                     std::to_string(T * 1000) + R"(":10.0,")" + std::to_string((T + 10) * 1000) +
                     R"(":12.0,")" + std::to_string((T + 20) * 1000) + R"(":14.0}}])");
}

TEST_F(GexpExecutorTest, TimeShiftReadsTheEarlierWindow) {
  EXPECT_EQ(Run({{"exp", "timeShift(sum:sys.b{host=web01},'1day')"}}),
            R"([{"metric":"sys.b","tags":{"host":"web01"},"aggregateTags":[],"dps":{)" + S(T) +
                ":100.0," + S(T + 10) + ":101.0," + S(T + 20) + ":102.0}}]");
}

TEST_F(GexpExecutorTest, DivideSeriesJoinsByHost) {
  const std::string out = Run({{"exp", "divideSeries(sum:sys.b{host=*},,sum:sys.a{host=*})"}});
  // web01: 0.5/0 = 0, 1.0/1, 1.5/2; web02 has no b: 0 / a = 0.
  EXPECT_EQ(out, R"([{"metric":"sys.a","tags":{"host":"web01"},"aggregateTags":[],"dps":{)" +
                     S(T) + ":0.0," + S(T + 10) + ":1.0," + S(T + 20) +
                     R"(:0.75}},{"metric":"sys.a","tags":{"host":"web02"},)"
                     R"("aggregateTags":[],"dps":{)" +
                     S(T) + ":0.0," + S(T + 10) + ":0.0," + S(T + 20) + ":0.0}}]");
}

// OpenTSDB 2.4's short names answer exactly as the long ones (shift reads
// the earlier window too), and the point count is reported.
TEST_F(GexpExecutorTest, ShortNamesMatchTheLongOnes) {
  const std::pair<const char*, const char*> pairs[] = {
      {"sum(sum:sys.b{host=*},,sum:sys.a{host=*})",
       "sumSeries(sum:sys.b{host=*},,sum:sys.a{host=*})"},
      {"difference(sum:sys.b{host=*},,sum:sys.a{host=*})",
       "diffSeries(sum:sys.b{host=*},,sum:sys.a{host=*})"},
      {"multiply(sum:sys.b{host=*},,sum:sys.a{host=*})",
       "multiplySeries(sum:sys.b{host=*},,sum:sys.a{host=*})"},
      {"divide(sum:sys.b{host=*},,sum:sys.a{host=*})",
       "divideSeries(sum:sys.b{host=*},,sum:sys.a{host=*})"},
      {"shift(sum:sys.b{host=web01},'1day')", "timeShift(sum:sys.b{host=web01},'1day')"}};
  for (const auto& [short_name, long_name] : pairs) {
    const std::string a = Run({{"exp", short_name}});
    EXPECT_EQ(a.substr(0, 6) == "ERROR " ? "" : a, Run({{"exp", long_name}})) << short_name;
  }
  // sum: web01 b+a = 0.5, 2.0, 3.5; web02 a alone.
  EXPECT_EQ(Run({{"exp", "sum(sum:sys.b{host=*},,sum:sys.a{host=*})"}}),
            R"([{"metric":"sys.a","tags":{"host":"web01"},"aggregateTags":[],"dps":{)" + S(T) +
                ":0.5," + S(T + 10) + ":2.0," + S(T + 20) +
                R"(:3.5}},{"metric":"sys.a","tags":{"host":"web02"},"aggregateTags":[],"dps":{)" +
                S(T) + ":10.0," + S(T + 10) + ":11.0," + S(T + 20) + ":12.0}}]");
  EXPECT_EQ(Run({{"exp", "shift(sum:sys.b{host=web01},'1day')"}}),
            R"([{"metric":"sys.b","tags":{"host":"web01"},"aggregateTags":[],"dps":{)" + S(T) +
                ":100.0," + S(T + 10) + ":101.0," + S(T + 20) + ":102.0}}]");
  GexpRequest req;
  ASSERT_TRUE(ParseGexpRequest({{"start", std::to_string(T)}, {"end", std::to_string(T + 60)},
                                {"exp", "difference(sum:sys.b{host=*},,sum:sys.a{host=*})"}},
                               kNow, &req)
                  .ok());
  QueryEngine engine(&st_, QueryLimits{});
  std::string json;
  uint64_t points = 99;
  ASSERT_TRUE(ExecuteGexpQuery(engine, req, &json, &points).ok());
  EXPECT_EQ(points, 6u);  // two series of three points
}

TEST_F(GexpExecutorTest, Errors) {
  EXPECT_EQ(Run({}), "ERROR Missing parameter <code>exp</code>");
  EXPECT_EQ(Run({{"exp", "scale(sum:nope,,2)"}}).substr(0, 30), "ERROR No such name for 'metric");
  EXPECT_EQ(Run({{"exp", "scale(avgx:sys.a,,2)"}}).substr(0, 6), "ERROR ");
  EXPECT_EQ(Run({{"exp", "nope(sum:sys.a)"}}),
            "ERROR Invalid expression [nope(sum:sys.a)]: function nope has not been implemented at "
            "position 0");
  ParamList many;
  for (size_t i = 0; i <= kMaxGexpExpressions; ++i) many.emplace_back("exp", "absolute(sum:sys.a)");
  EXPECT_EQ(Run(many), "ERROR Too many expressions: at most 32 per query");
}

TEST_F(GexpExecutorTest, LimitsHoldForTheWholeRequest) {
  QueryLimits l;
  l.max_output_points = 13;  // 6 points read + 6 computed per expression
  EXPECT_EQ(Run({{"exp", "absolute(sum:sys.a{host=*})"}}, l).substr(0, 6), "[{\"met");
  const std::string out =
      Run({{"exp", "absolute(sum:sys.a{host=*})"}, {"exp", "absolute(sum:sys.a{host=*})"}}, l);
  EXPECT_NE(out.find("(query.max_output_points)"), std::string::npos) << out;
  QueryLimits bytes;
  bytes.max_output_bytes = 50;
  EXPECT_NE(Run({{"exp", "absolute(sum:sys.a{host=*})"}}, bytes).find("query.max_output_bytes"),
            std::string::npos);
}

}  // namespace
}  // namespace sundial::query
