#include "sundial/query/exp_executor.h"

#include <gtest/gtest.h>

#include <string>

#include "mem_storage.h"

namespace sundial::query {
namespace {

using testing::MemStorage;

constexpr int64_t T = 1356998400;  // an hour boundary, seconds
constexpr Timestamp kNow = (T + 86400) * 1000;

class ExpExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const SeriesId a1 = st_.Add("sys.a", {{"host", "web01"}});
    const SeriesId a2 = st_.Add("sys.a", {{"host", "web02"}});
    const SeriesId b1 = st_.Add("sys.b", {{"host", "web01"}});
    for (int i = 0; i < 3; ++i) {
      st_.Put(a1, (T + 10 * i) * 1000, Value::Int(i));
      st_.Put(a2, (T + 10 * i) * 1000, Value::Int(10 + i));
      if (i != 1) st_.Put(b1, (T + 10 * i) * 1000, Value::Float(0.5 * i));
    }
  }
  // Runs body; returns the JSON or "ERROR <message>".
  std::string Run(const std::string& body, QueryLimits limits = {}) {
    ExpRequest req;
    Status s = ParseExpRequest(body, kNow, &req);
    if (s.ok()) {
      QueryEngine engine(&st_, limits);
      std::string json;
      s = ExecuteExpQuery(engine, req, &json);
      if (s.ok()) return json;
    }
    return "ERROR " + s.message();
  }
  static std::string Query(const std::string& rest) {
    return R"({"time":{"start":")" + std::to_string(T) + R"(","end":")" + std::to_string(T + 60) +
           R"(","aggregator":"sum"},"filters":[{"id":"f","tags":[{"type":"wildcard","tagk":"host",)"
           R"("filter":"*","groupBy":true}]}],)" + rest + "}";
  }
  static std::string Ms(int64_t sec) { return std::to_string(sec * 1000); }

  MemStorage st_;
};

TEST_F(ExpExecutorTest, UnionOfGroupsWithFill) {
  const std::string out = Run(Query(
      R"("metrics":[{"id":"a","metric":"sys.a","filter":"f"},{"id":"b","metric":"sys.b","filter":"f"}],)"
      R"("expressions":[{"id":"e","expr":"a + b"}],"outputs":[{"id":"e","alias":"sum"}])"));
  // web01: a + b with b's gap filled with 0; web02: b has no series (0).
  const std::string dps = "[[" + Ms(T) + ",0.0,10.0],[" + Ms(T + 10) + ",1.0,11.0],[" +
                          Ms(T + 20) + ",3.0,12.0]]";
  EXPECT_EQ(out.substr(0, out.find(",\"query\"")),
            R"({"outputs":[{"id":"e","alias":"sum","dps":)" + dps +
                R"(,"dpsMeta":{"firstTimestamp":)" + Ms(T) + R"(,"lastTimestamp":)" + Ms(T + 20) +
                R"(,"setCount":3,"series":2},"meta":[{"index":0,"metrics":["timestamp"]},)"
                R"({"index":1,"metrics":["sys.a","sys.b"],"commonTags":{"host":"web01"},"aggregatedTags":[]},)"
                R"({"index":2,"metrics":["sys.a","sys.b"],"commonTags":{"host":"web02"},"aggregatedTags":[]}]}])");
  EXPECT_NE(out.find(R"(,"query":{"name":null,"time":{"start":")"), std::string::npos);
}

TEST_F(ExpExecutorTest, IntersectionAndNaNFill) {
  const std::string out = Run(Query(
      R"("metrics":[{"id":"a","metric":"sys.a","filter":"f"},)"
      R"({"id":"b","metric":"sys.b","filter":"f","fillPolicy":{"policy":"nan"}}],)"
      R"("expressions":[{"id":"e","expr":"a * b","join":{"operator":"intersection"}}])"));
  EXPECT_NE(out.find(R"("dps":[[)" + Ms(T) + R"(,0.0],[)" + Ms(T + 10) + R"(,"NaN"],[)" +
                     Ms(T + 20) + R"(,2.0]])"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(R"("series":1})"), std::string::npos);
}

// Without expressions every metric is output, untrimmed, with its fill.
TEST_F(ExpExecutorTest, MetricOutputs) {
  const std::string out = Run(Query(R"("metrics":[{"id":"b","metric":"sys.b"}])"));
  EXPECT_NE(out.find(R"({"id":"b","dps":[[)" + Ms(T) + R"(,0.0],[)" + Ms(T + 20) +
                     R"(,1.0]],"dpsMeta":{"firstTimestamp":)" + Ms(T) +
                     R"(,"lastTimestamp":)" + Ms(T + 20) + R"(,"setCount":2,"series":1})"),
            std::string::npos)
      << out;
}

// OpenTSDB's quirks: one row leaves lastTimestamp 0; no series leaves
// out "meta".
TEST_F(ExpExecutorTest, SerializerQuirks) {
  std::string out = Run(R"({"time":{"start":")" + std::to_string(T + 20) + R"(","end":")" +
                        std::to_string(T + 25) + R"(","aggregator":"sum"},)"
                        R"("metrics":[{"id":"a","metric":"sys.a"}],)"
                        R"("expressions":[{"id":"e","expr":"a + 1"}]})");
  EXPECT_NE(out.find(R"("dps":[[)" + Ms(T + 20) + R"(,15.0]],"dpsMeta":{"firstTimestamp":)" +
                     Ms(T + 20) + R"(,"lastTimestamp":0,"setCount":1,"series":1})"),
            std::string::npos)
      << out;
  out = Run(R"({"time":{"start":")" + std::to_string(T + 3600) + R"(","aggregator":"sum"},)"
            R"("metrics":[{"id":"a","metric":"sys.a"}],"expressions":[{"id":"e","expr":"a"}]})");
  EXPECT_NE(out.find(R"({"id":"e","dps":[],"dpsMeta":{"firstTimestamp":0,"lastTimestamp":0,)"
                     R"("setCount":0,"series":0}})"),
            std::string::npos)
      << out;
}

TEST_F(ExpExecutorTest, EngineErrorsAndLimits) {
  EXPECT_EQ(Run(Query(R"("metrics":[{"id":"a","metric":"nope"}])")),
            "ERROR No such name for 'metrics': 'nope'\x1fNo such name for 'metrics': 'nope'");
  QueryLimits limits;
  limits.max_output_points = 4;  // the metric query alone returns 6 points
  EXPECT_EQ(Run(Query(R"("metrics":[{"id":"a","metric":"sys.a","filter":"f"}],)"
                      R"("expressions":[{"id":"e","expr":"a"}])"),
                limits)
                .rfind("ERROR Sorry, this query would return more than our limit of 4 data", 0),
            0u);
  limits.max_output_points = 8;  // 6 from the query, 6 more from the expression
  EXPECT_EQ(Run(Query(R"("metrics":[{"id":"a","metric":"sys.a","filter":"f"}],)"
                      R"("expressions":[{"id":"e","expr":"a"}])"),
                limits)
                .rfind("ERROR Sorry, this query would return more than our limit of 8 data", 0),
            0u);
  limits = QueryLimits();
  limits.max_output_bytes = 100;
  EXPECT_EQ(Run(Query(R"("metrics":[{"id":"a","metric":"sys.a","filter":"f"}])"), limits)
                .rfind("ERROR Sorry", 0),
            0u);
}

// Series and raw points count over every metric query of the request.
TEST_F(ExpExecutorTest, SeriesAndPointLimitsSpanTheMetrics) {
  const std::string body = Query(
      R"("metrics":[{"id":"a","metric":"sys.a","filter":"f"},{"id":"b","metric":"sys.b","filter":"f"}],)"
      R"("expressions":[{"id":"e","expr":"a + b"}])");
  QueryLimits limits;
  limits.max_series = 3;  // a has 2, b 1
  EXPECT_EQ(Run(body, limits).rfind("{\"outputs\"", 0), 0u);
  limits.max_series = 2;
  EXPECT_EQ(Run(body, limits).rfind("ERROR Sorry, you have attempted to fetch more than our limit of 2 time series", 0), 0u);
  limits = QueryLimits();
  limits.max_points = 8;  // a reads 6, b 2
  EXPECT_EQ(Run(body, limits).rfind("{\"outputs\"", 0), 0u);
  limits.max_points = 7;
  EXPECT_EQ(Run(body, limits).rfind("ERROR Sorry, you have attempted to fetch more than our limit of 7 data", 0), 0u);
}

TEST_F(ExpExecutorTest, DownsampleAndRate) {
  std::string out = Run(R"({"time":{"start":")" + std::to_string(T) + R"(","end":")" +
                        std::to_string(T + 60) + R"(","aggregator":"sum","downsampler":)"
                        R"({"interval":"1m","aggregator":"max"}},"metrics":[{"id":"a","metric":"sys.a"}],)"
                        R"("expressions":[{"id":"e","expr":"a * 2"}]})");
  EXPECT_NE(out.find(R"("dps":[[)" + Ms(T) + R"(,28.0]])"), std::string::npos) << out;
  out = Run(R"({"time":{"start":")" + std::to_string(T) + R"(","end":")" + std::to_string(T + 60) +
            R"(","aggregator":"sum","rate":true},"metrics":[{"id":"a","metric":"sys.a"}],)"
            R"("expressions":[{"id":"e","expr":"a"}]})");
  // Two series rising by 1 every 10 s: 0.2/s together.
  EXPECT_NE(out.find(R"(,0.2])"), std::string::npos) << out;
}

}  // namespace
}  // namespace sundial::query
