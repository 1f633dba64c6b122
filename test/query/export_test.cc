#include "sundial/query/export.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "mem_storage.h"

namespace sundial::query {
namespace {

using testing::MemStorage;
using testing::StringSink;

constexpr int64_t T = 1356998400;

class ExportTest : public ::testing::Test {
 protected:
  std::string Run(const ParamList& params, QueryLimits limits = {}) {
    ExportRequest req;
    Status s = ParseExportParams(params, T * 1000 + 86400000, &req);
    if (!s.ok()) return "PARSE " + s.message();
    StringSink sink;
    s = Export(&st_, limits, req, &sink);
    return s.ok() ? sink.body : "ERROR " + s.message();
  }
  MemStorage st_;
};

TEST_F(ExportTest, PutJsonAndCsvLines) {
  const SeriesId a = st_.Add("cpu", {{"host", "a"}});
  const SeriesId b = st_.Add("cpu", {{"host", "b"}, {"dc", "x"}});
  st_.Put(a, T * 1000, Value::Int(1));
  st_.Put(a, T * 1000 + 1500, Value::Float(0.1));
  st_.Put(b, T * 1000, Value::Float(100.0));
  EXPECT_EQ(Run({{"start", std::to_string(T)}, {"metric", "cpu"}}),
            "put cpu 1356998400 1 host=a\nput cpu 1356998401500 0.1 host=a\n"
            "put cpu 1356998400 100.0 dc=x host=b\n");
  EXPECT_EQ(Run({{"start", std::to_string(T)}, {"m", "sum:cpu{host=b}"}, {"format", "json"}}),
            "{\"metric\":\"cpu\",\"tags\":{\"dc\":\"x\",\"host\":\"b\"},\"timestamp\":1356998400,"
            "\"value\":100.0}\n");
  EXPECT_EQ(Run({{"start", std::to_string(T)}, {"end", std::to_string(T)}, {"metric", "c?u"},
                 {"format", "csv"}}),
            "metric,timestamp,value,tags\ncpu,1356998400000,1,host=a\n"
            "cpu,1356998400000,100.0,dc=x;host=b\n");
}

TEST_F(ExportTest, FloatsReadBackBitForBit) {
  const SeriesId a = st_.Add("m", {{"k", "v"}});
  const double values[] = {0.1, 1e-300, 5e-324, 1.7976931348623157e308, -2.5e17, 1.0 / 3,
                           123456789.123456789};
  for (size_t i = 0; i < std::size(values); ++i) st_.Put(a, (T + i) * 1000, Value::Float(values[i]));
  st_.Put(a, (T + 100) * 1000, Value::Int(std::numeric_limits<int64_t>::min()));
  const std::string out = Run({{"start", std::to_string(T)}, {"metric", "m"}});
  size_t i = 0;
  for (size_t p = 0; p < out.size(); ++i) {
    const size_t nl = out.find('\n', p);
    const std::string line = out.substr(p, nl - p);
    p = nl + 1;
    // put m <ts> <value> k=v
    const size_t v0 = line.find(' ', 6) + 1;
    const std::string value = line.substr(v0, line.find(' ', v0) - v0);
    // A float keeps a '.' or an exponent (put reads it as a float again)
    // and its digits give back the same double.
    if (i < std::size(values)) {
      EXPECT_NE(value.find_first_of(".E"), std::string::npos) << value;
      EXPECT_TRUE(Value::Float(std::strtod(value.c_str(), nullptr))
                      .BitEquals(Value::Float(values[i])))
          << value;
    } else {
      EXPECT_EQ(value, "-9223372036854775808");
    }
  }
  EXPECT_EQ(i, std::size(values) + 1);
}

TEST_F(ExportTest, ErrorsAndLimits) {
  st_.Add("cpu", {{"host", "a"}});
  st_.Add("cpu", {{"host", "b"}});
  EXPECT_EQ(Run({{"metric", "cpu"}}), "PARSE Missing parameter <code>start</code>");
  EXPECT_EQ(Run({{"start", "0"}}), "PARSE Missing parameter <code>m</code> or <code>metric</code>");
  EXPECT_EQ(Run({{"start", "0"}, {"metric", "cpu"}, {"format", "xml"}}),
            "PARSE Unknown export format 'xml' (put, json or csv)");
  EXPECT_EQ(Run({{"start", "0"}, {"m", "sum:nope"}}).substr(0, 32), "ERROR No such name for 'metrics'");
  EXPECT_EQ(Run({{"start", "0"}, {"metric", "nope*"}}), "");
  QueryLimits limits;
  limits.max_series = 1;
  EXPECT_EQ(Run({{"start", "0"}, {"metric", "cpu"}}, limits).substr(0, 34),
            "ERROR Sorry, this export selects m");
}

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("sys.*", "sys.cpu.user"));
  EXPECT_TRUE(GlobMatch("*.user", "sys.cpu.user"));
  EXPECT_TRUE(GlobMatch("s?s.*u*r", "sys.cpu.user"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
  EXPECT_FALSE(GlobMatch("sys.*", "sysX"));
  EXPECT_FALSE(GlobMatch("cpu", "cpu.user"));
  EXPECT_FALSE(GlobMatch("a*b", "aXbY"));
  EXPECT_TRUE(GlobMatch(std::string(50, '*') + "b", std::string(1000, 'a') + "b"));
}

}  // namespace
}  // namespace sundial::query
