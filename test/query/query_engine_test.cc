#include "sundial/query/query_engine.h"

#include <gtest/gtest.h>

#include <chrono>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "mem_storage.h"

namespace sundial::query {
namespace {

using testing::MemStorage;
using testing::StringSink;

constexpr int64_t T = 1356998400;  // an hour boundary, seconds
constexpr Timestamp kNow = (T + 86400) * 1000;

class QueryEngineTest : public ::testing::Test {
 protected:
  std::string Run(const ParamList& params, QueryLimits limits = {}) {
    QuerySpec spec;
    Status s = ParseQueryParams(params, kNow, &spec);
    EXPECT_TRUE(s.ok()) << s.ToString();
    QueryEngine engine(&st_, limits);
    StringSink sink;
    last_status_ = engine.Execute(spec, &sink);
    return last_status_.ok() ? sink.body : "ERROR " + last_status_.message();
  }
  std::string Get(const std::string& m, int64_t start = T, int64_t end = T + 3599,
                  ParamList extra = {}) {
    ParamList p = {{"start", std::to_string(start)}, {"end", std::to_string(end)}, {"m", m}};
    p.insert(p.end(), extra.begin(), extra.end());
    return Run(p);
  }
  SeriesId Add(const std::string& metric, std::vector<std::pair<std::string, std::string>> tags) {
    return st_.Add(metric, tags);
  }
  void PutI(SeriesId id, int64_t sec, int64_t v) { st_.Put(id, sec * 1000, Value::Int(v)); }
  void PutF(SeriesId id, int64_t sec, double v) { st_.Put(id, sec * 1000, Value::Float(v)); }
  static std::string K(int64_t sec) { return "\"" + std::to_string(sec) + "\""; }

  MemStorage st_;
  Status last_status_;
};

// TSUIDs: 3-byte hex UIDs (4 bytes once a UID needs them), metric first,
// then tag pairs in tagk UID order.
TEST(Tsuid, HexOfUidsInTagkOrder) {
  storage::SeriesKey key;
  key.metric_uid = 1;
  key.tag_uids = {{7, 0x1000000}, {3, 0xABCDEF}};
  EXPECT_EQ(TsuidOf(key), "000001000003ABCDEF00000701000000");
  key.tag_uids.clear();
  EXPECT_EQ(TsuidOf(key), "000001");
}

TEST_F(QueryEngineTest, IntegerLerpAcrossSeries) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  PutI(a, T, 10);
  PutI(a, T + 20, 30);
  PutI(b, T + 10, 5);
  EXPECT_EQ(Get("sum:m"), "[{\"metric\":\"m\",\"tags\":{},\"aggregateTags\":[\"host\"],\"dps\":{" +
                              K(T) + ":10," + K(T + 10) + ":25," + K(T + 20) + ":30}}]");
}

TEST_F(QueryEngineTest, AnyFloatCurrentOrNextMakesDouble) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  PutI(a, T, 10);
  PutI(a, T + 20, 30);
  PutF(b, T + 10, 5.5);
  EXPECT_EQ(Get("sum:m"), "[{\"metric\":\"m\",\"tags\":{},\"aggregateTags\":[\"host\"],\"dps\":{" +
                              K(T) + ":10.0," + K(T + 10) + ":25.5," + K(T + 20) + ":30}}]");
}

TEST_F(QueryEngineTest, InterpolationModes) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  PutI(a, T, 10);
  PutI(a, T + 20, 30);
  PutI(b, T + 5, 7);
  PutI(b, T + 10, 8);
  // zimsum: a counts 0 where it has no point.
  EXPECT_NE(Get("zimsum:m").find(K(T + 5) + ":7," + K(T + 10) + ":8,"), std::string::npos);
  // mimmin: missing series use Long.MAX so min ignores them.
  EXPECT_NE(Get("mimmin:m").find(K(T + 5) + ":7,"), std::string::npos);
  // pfsum: previous value of a (10) is used.
  EXPECT_NE(Get("pfsum:m").find(K(T + 5) + ":17," + K(T + 10) + ":18,"), std::string::npos);
  // avg truncates in integer mode: (15 + 7) / 2 = 11.
  EXPECT_NE(Get("avg:m").find(K(T + 5) + ":11,"), std::string::npos);
}

TEST_F(QueryEngineTest, DownsampleFillPolicies) {
  SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 1);
  PutI(a, T + 30, 3);
  PutI(a, T + 125, 5);
  const std::string head =
      "[{\"metric\":\"m\",\"tags\":{\"host\":\"a\"},\"aggregateTags\":[],\"dps\":{";
  EXPECT_EQ(Get("sum:1m-avg:m", T, T + 179), head + K(T) + ":2.0," + K(T + 120) + ":5.0}}]");
  EXPECT_EQ(Get("sum:1m-avg-nan:m", T, T + 179),
            head + K(T) + ":2.0," + K(T + 60) + ":\"NaN\"," + K(T + 120) + ":5.0}}]");
  EXPECT_EQ(Get("sum:1m-avg-null:m", T, T + 179),
            head + K(T) + ":2.0," + K(T + 60) + ":null," + K(T + 120) + ":5.0}}]");
  EXPECT_EQ(Get("sum:1m-avg-zero:m", T, T + 179),
            head + K(T) + ":2.0," + K(T + 60) + ":0.0," + K(T + 120) + ":5.0}}]");
  // A start inside a bucket drops that bucket; a bucket starting at end stays.
  EXPECT_EQ(Get("sum:1m-count:m", T + 1, T + 120), head + K(T + 120) + ":1.0}}]");
  EXPECT_EQ(Get("sum:0all-sum:m", T, T + 179), head + K(T) + ":9.0}}]");
}

TEST_F(QueryEngineTest, DownsampleSumMinMaxSkipNaN) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  SeriesId a = Add("m", {{"host", "a"}});
  PutF(a, T, 1);  // bucket T: 1, NaN, 3
  PutF(a, T + 10, nan);
  PutF(a, T + 20, 3);
  PutF(a, T + 60, nan);  // bucket T+60: only NaN
  PutF(a, T + 120, -inf);  // bucket T+120: -inf, 2
  PutF(a, T + 130, 2);
  PutF(a, T + 180, inf);  // bucket T+180: +inf
  const std::string head =
      "[{\"metric\":\"m\",\"tags\":{\"host\":\"a\"},\"aggregateTags\":[],\"dps\":{";
  EXPECT_EQ(Get("sum:1m-max:m", T, T + 239),
            head + K(T) + ":3.0," + K(T + 60) + ":\"NaN\"," + K(T + 120) + ":2.0," + K(T + 180) +
                ":\"Infinity\"}}]");
  // min over {-inf, 2} is -inf; a lone +inf is "no value" for min, as in
  // the collecting path.
  EXPECT_EQ(Get("sum:1m-min:m", T, T + 239),
            head + K(T) + ":1.0," + K(T + 60) + ":\"NaN\"," + K(T + 120) + ":\"-Infinity\"," +
                K(T + 180) + ":\"NaN\"}}]");
  EXPECT_EQ(Get("sum:1m-sum:m", T, T + 239),
            head + K(T) + ":4.0," + K(T + 60) + ":\"NaN\"," + K(T + 120) + ":\"-Infinity\"," +
                K(T + 180) + ":\"Infinity\"}}]");
}

TEST_F(QueryEngineTest, RateOptions) {
  SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 10);
  PutI(a, T + 10, 20);
  PutI(a, T + 20, 5);
  const std::string head =
      "[{\"metric\":\"m\",\"tags\":{\"host\":\"a\"},\"aggregateTags\":[],\"dps\":{";
  EXPECT_EQ(Get("sum:rate:m"), head + K(T + 10) + ":1.0," + K(T + 20) + ":-1.5}}]");
  EXPECT_EQ(Get("sum:rate{counter,100}:m"), head + K(T + 10) + ":1.0," + K(T + 20) + ":8.5}}]");
  EXPECT_EQ(Get("sum:rate{counter,100,5}:m"), head + K(T + 10) + ":1.0," + K(T + 20) + ":0.0}}]");
  EXPECT_EQ(Get("sum:rate{dropcounter}:m"), head + K(T + 10) + ":1.0}}]");
}

TEST_F(QueryEngineTest, GroupByTagsAndAggregateTags) {
  PutI(Add("m", {{"host", "a"}, {"dc", "x"}}), T, 1);
  PutI(Add("m", {{"host", "b"}, {"dc", "x"}}), T, 2);
  PutI(Add("m", {{"host", "c"}, {"dc", "y"}, {"rack", "r1"}}), T, 4);
  Add("m", {{"host", "d"}, {"dc", "z"}});  // no data: no group
  EXPECT_EQ(Get("sum:m{dc=*}"),
            "[{\"metric\":\"m\",\"tags\":{\"dc\":\"x\"},\"aggregateTags\":[\"host\"],\"dps\":{" +
                K(T) + ":3}},{\"metric\":\"m\",\"tags\":{\"dc\":\"y\",\"host\":\"c\",\"rack\":\"r1\"},"
                "\"aggregateTags\":[],\"dps\":{" + K(T) + ":4}}]");
  // No group-by: one group; rack appears in only one series but keeps its value.
  EXPECT_EQ(Get("sum:m"), "[{\"metric\":\"m\",\"tags\":{\"rack\":\"r1\"},\"aggregateTags\":"
                          "[\"dc\",\"host\"],\"dps\":{" + K(T) + ":7}}]");
  // Non-group-by filter, explicit tags, none aggregator.
  EXPECT_NE(Get("sum:m{}{host=literal_or(a|c)}").find(K(T) + ":5"), std::string::npos);
  EXPECT_NE(Get("sum:m{}{host=not_literal_or(a)}").find(K(T) + ":6"), std::string::npos);
  EXPECT_NE(Get("sum:explicit_tags:m{host=*,dc=*}").find("\"host\":\"b\""), std::string::npos);
  EXPECT_EQ(Get("sum:explicit_tags:m{host=c}").find("\"c\""), std::string::npos);
  const std::string none = Get("none:m");
  EXPECT_NE(none.find("\"host\":\"a\""), std::string::npos);
  EXPECT_NE(none.find("\"host\":\"c\""), std::string::npos);
}

// Before reading raw points, the engine hints storage once per sub-query
// with every series in the order the groups read them.
TEST_F(QueryEngineTest, HintsStorageWithTheSeriesOfEachSubQuery) {
  const SeriesId a = Add("m", {{"host", "b"}});
  const SeriesId b = Add("m", {{"host", "a"}});
  const SeriesId c = Add("n", {{"host", "a"}});
  PutI(a, T, 1);
  PutI(b, T, 2);
  PutI(c, T, 3);
  ASSERT_NE(Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 3599)},
                 {"m", "sum:m{host=*}"}, {"m", "sum:n"}}).find(K(T) + ":3"),
            std::string::npos);
  ASSERT_EQ(st_.will_read.size(), 2u);
  EXPECT_EQ(st_.will_read[0].ids, (std::vector<SeriesId>{b, a}));  // groups host=a, host=b
  // The scan window: the query's, widened for interpolation at its edges.
  EXPECT_LE(st_.will_read[0].start, T * 1000);
  EXPECT_GE(st_.will_read[0].end, (T + 3599) * 1000 + 999);
  EXPECT_EQ(st_.will_read[1].ids, (std::vector<SeriesId>{c}));
  EXPECT_TRUE(st_.hinted_ids.empty());  // the hints covered no series
}

// The series a hint covered are read with iterators that do not ask the
// disk again; the others with plain ones. The result is the same.
TEST_F(QueryEngineTest, SeriesAHintCoveredAreNotAskedForAgain) {
  const SeriesId a = Add("m", {{"host", "b"}});
  const SeriesId b = Add("m", {{"host", "a"}});
  const SeriesId c = Add("m", {{"host", "c"}});
  PutI(a, T, 1);
  PutI(b, T, 2);
  PutI(c, T, 4);
  const std::vector<std::pair<std::string, std::string>> q = {
      {"start", std::to_string(T)}, {"end", std::to_string(T + 3599)}, {"m", "sum:m{host=*}"}};
  const std::string plain = Run(q);
  st_.will_read_bytes = 1000;
  st_.will_read_covered = 2;  // of b, a, c (group order): b and a
  EXPECT_EQ(Run(q), plain);
  std::vector<SeriesId> hinted = st_.hinted_ids;
  std::sort(hinted.begin(), hinted.end());
  EXPECT_EQ(hinted, (std::vector<SeriesId>{std::min(a, b), std::max(a, b)}));
}

// A query run on the query threads lets storage read its hinted pages
// into memory; a small query, run on an I/O thread, only hints (a
// synchronous read there would hold up every connection).
TEST_F(QueryEngineTest, OnlyQueriesOffTheIoThreadsKeepReadAhead) {
  const SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 1);
  const std::vector<std::pair<std::string, std::string>> q = {
      {"start", std::to_string(T)}, {"end", std::to_string(T + 3599)}, {"m", "sum:m"}};
  ASSERT_NE(Run(q).find(K(T) + ":1"), std::string::npos);
  ASSERT_EQ(st_.will_read.size(), 1u);
  EXPECT_TRUE(st_.will_read[0].keep);
  QuerySpec spec;
  ASSERT_TRUE(ParseQueryParams(q, kNow, &spec).ok());
  QueryEngine engine(&st_, QueryLimits());
  std::string body;
  ASSERT_TRUE(engine.ExecuteSmall(spec, SmallQueryBound{8, 1000}, &body).ok());
  EXPECT_NE(body.find(K(T) + ":1"), std::string::npos);
  ASSERT_EQ(st_.will_read.size(), 2u);
  EXPECT_FALSE(st_.will_read[1].keep);
}

// The read-ahead of one request is one budget over all its sub-queries:
// what a hint spent is not offered again, and once it is gone the
// remaining sub-queries ask for none.
TEST_F(QueryEngineTest, ReadAheadIsOneBudgetPerRequest) {
  const SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 1);
  st_.will_read_bytes = 5u << 20;  // each hint spends 5 MiB if it may
  std::vector<std::pair<std::string, std::string>> params = {
      {"start", std::to_string(T)}, {"end", std::to_string(T + 3599)}};
  for (const char* agg : {"sum", "max", "min", "avg"}) params.push_back({"m", std::string(agg) + ":m"});
  ASSERT_NE(Run(params).find(K(T) + ":1"), std::string::npos);
  ASSERT_EQ(st_.will_read.size(), 2u);  // the third and fourth find it spent
  EXPECT_EQ(st_.will_read[0].max_bytes, 8u << 20);
  EXPECT_EQ(st_.will_read[1].max_bytes, 3u << 20);
  // A new request has the whole budget again.
  st_.will_read.clear();
  ASSERT_NE(Run(params).find(K(T) + ":1"), std::string::npos);
  ASSERT_EQ(st_.will_read.size(), 2u);
  EXPECT_EQ(st_.will_read[0].max_bytes, 8u << 20);
}

TEST_F(QueryEngineTest, UnknownNamesAndEmptyResults) {
  PutI(Add("m", {{"host", "a"}}), T, 1);
  Add("empty", {{"host", "a"}});
  EXPECT_EQ(Get("sum:nope"), "ERROR No such name for 'metrics': 'nope'\x1fNo such name for 'metrics': 'nope'");
  EXPECT_EQ(Get("sum:m{zone=*}").substr(0, 34), "ERROR No such name for 'tagk': 'zo");
  EXPECT_EQ(Get("sum:m{host=zz}").substr(0, 34), "ERROR No such name for 'tagv': 'zz");
  EXPECT_EQ(Get("sum:m{host=wildcard(zz*)}"), "[]");
  EXPECT_EQ(Get("sum:empty"), "[]");
  // Data in the scan window but not in [start,end]: group with empty dps.
  EXPECT_EQ(Get("sum:m", T + 100, T + 200),
            "[{\"metric\":\"m\",\"tags\":{\"host\":\"a\"},\"aggregateTags\":[],\"dps\":{}}]");
}

TEST_F(QueryEngineTest, OutputOptions) {
  SeriesId a = Add("m", {{"host", "a"}});
  st_.Put(a, T * 1000 + 250, Value::Int(1));
  EXPECT_NE(Get("sum:m", T, T + 10, {{"ms", ""}}).find("\"" + std::to_string(T * 1000 + 250) + "\":1"),
            std::string::npos);
  EXPECT_NE(Get("sum:m", T, T + 10, {{"arrays", ""}}).find("\"dps\":[[" + std::to_string(T) + ",1]]"),
            std::string::npos);
  const std::string q = Get("sum:m", T, T + 10, {{"show_query", ""}, {"show_tsuids", ""}});
  EXPECT_NE(q.find("\"index\":0"), std::string::npos);
  EXPECT_NE(q.find("\"tsuids\":[\"000001000001000001\"]"), std::string::npos);
}

TEST_F(QueryEngineTest, StatsAndSummary) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  for (int i = 0; i < 10; ++i) {
    PutI(a, T + i, i);
    PutI(b, T + i, i);
  }
  PutI(a, T + 3000, 1);  // in the scan window, after end: read, not emitted
  const std::string r =
      Get("sum:m{host=*}", T, T + 4, {{"show_stats", ""}, {"show_summary", ""}});
  // Per result, after dps: figures of that group.
  EXPECT_NE(r.find("},\"stats\":{\"queryIndex\":0,\"series\":1,\"rawDatapoints\":11,"
                   "\"emittedDPs\":5,\"timeTotalMs\":"),
            std::string::npos) << r;
  EXPECT_NE(r.find("\"stats\":{\"queryIndex\":0,\"series\":1,\"rawDatapoints\":10,"
                   "\"emittedDPs\":5,"),
            std::string::npos) << r;
  // A trailing element sums them up.
  EXPECT_NE(r.find(",{\"statsSummary\":{\"queries\":1,\"series\":2,\"rawDatapoints\":21,"
                   "\"emittedDPs\":10,\"timeTotalMs\":"),
            std::string::npos) << r;
  EXPECT_EQ(r.substr(r.size() - 3), "}}]");
  // No result: the summary alone.
  EXPECT_EQ(Get("sum:m{host=*}", T + 7200, T + 7300, {{"show_summary", ""}}).rfind("[{\"statsSummary\":", 0), 0u);
  // Without the flags: neither.
  EXPECT_EQ(Get("sum:m{host=*}", T, T + 4).find("stats"), std::string::npos);
}

TEST_F(QueryEngineTest, LimitsAnswerWithClearErrors) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  for (int i = 0; i < 100; ++i) {
    PutI(a, T + i, i);
    PutI(b, T + i, i);
  }
  QueryLimits l;
  l.max_series = 1;
  Run({{"start", std::to_string(T)}, {"m", "sum:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("limit of 1 time series"), std::string::npos);
  l = {};
  l.max_points = 50;
  Run({{"start", std::to_string(T)}, {"m", "sum:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("50 data points"), std::string::npos);
}

// A filling downsample's bucket count is known before reading: 1ms
// buckets over years are refused at once, before anything is allocated.
TEST_F(QueryEngineTest, OutputPointsRefusedBeforeReading) {
  SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 1);
  QueryLimits l;
  l.max_output_points = 1000;
  const auto t0 = std::chrono::steady_clock::now();
  Run({{"start", "0"}, {"end", std::to_string(T)}, {"m", "sum:1ms-avg-zero:m"}}, l);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("limit of 1000 data points (query.max_output_points)"),
            std::string::npos) << last_status_.message();
  // Within the limit it runs.
  Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 999)}, {"m", "sum:1s-avg-zero:m"}},
      l);
  EXPECT_TRUE(last_status_.ok()) << last_status_.ToString();
  // The count is per group: two groups double it.
  SeriesId b = Add("m", {{"host", "b"}});
  PutI(b, T, 1);
  Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 999)},
       {"m", "sum:1s-avg-zero:m{host=*}"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
}

// Without a fill policy the count depends on the data: it is enforced as
// the points are written.
TEST_F(QueryEngineTest, OutputPointsEnforcedWhileRunning) {
  SeriesId a = Add("m", {{"host", "a"}});
  for (int i = 0; i < 500; ++i) PutI(a, T + i, i);
  QueryLimits l;
  l.max_output_points = 100;
  Run({{"start", std::to_string(T)}, {"m", "sum:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("query.max_output_points"), std::string::npos);
  l.max_output_points = 500;
  Run({{"start", std::to_string(T)}, {"m", "sum:m"}}, l);
  EXPECT_TRUE(last_status_.ok()) << last_status_.ToString();
}

TEST_F(QueryEngineTest, OutputBytesLimit) {
  SeriesId a = Add("m", {{"host", "a"}});
  for (int i = 0; i < 20000; ++i) PutF(a, T + i, i * 0.5);
  QueryLimits l;
  l.max_output_bytes = 100000;
  // Known up front (fill policy): refused before reading.
  Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 19999)},
       {"m", "sum:1s-avg-nan:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("query.max_output_bytes"), std::string::npos);
  // Counted while streaming.
  Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 19999)}, {"m", "none:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("100000 bytes (query.max_output_bytes)"),
            std::string::npos) << last_status_.message();
  l.max_output_bytes = 10 << 20;
  Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 19999)}, {"m", "none:m"}}, l);
  EXPECT_TRUE(last_status_.ok()) << last_status_.ToString();
}

TEST_F(QueryEngineTest, MemoryLimit) {
  for (int i = 0; i < 64; ++i) PutI(Add("m", {{"host", "h" + std::to_string(i)}}), T, i);
  QueryLimits l;
  l.max_memory = 16 * 1024;  // a few series' pipelines
  Run({{"start", std::to_string(T)}, {"m", "sum:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  EXPECT_NE(last_status_.message().find("query.max_memory"), std::string::npos);
  // Groups run one after the other: small groups fit.
  Run({{"start", std::to_string(T)}, {"m", "sum:m{host=*}"}}, l);
  EXPECT_TRUE(last_status_.ok()) << last_status_.ToString();
  // The values of one bucket for a percentile are held too.
  SeriesId a = Add("p", {{"host", "a"}});
  for (int i = 0; i < 5000; ++i) PutI(a, T + i / 4, i);
  Run({{"start", std::to_string(T)}, {"m", "sum:0all-p99:p"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted());
  l.max_memory = 1 << 20;
  Run({{"start", std::to_string(T)}, {"m", "sum:0all-p99:p"}}, l);
  EXPECT_TRUE(last_status_.ok()) << last_status_.ToString();
}

// A group of downsampled series with few buckets each runs every member
// to its end before opening the next (Materialize): the sums are those of
// the members' own answers, and the buckets held count against
// query.max_memory (500 buckets of 24 bytes per member here).
TEST_F(QueryEngineTest, FewBucketsPerMemberAreHeldWithinTheBudget) {
  for (int h = 0; h < 4; ++h) {
    const SeriesId id = Add("m", {{"host", "h" + std::to_string(h)}});
    for (int i = 0; i < 2000; ++i) PutI(id, T + i, h * 1000 + i % 7);
  }
  const std::string end = std::to_string(T + 1999);
  QueryLimits l;
  l.max_memory = 40 * 1024;
  Run({{"start", std::to_string(T)}, {"end", end}, {"m", "sum:4s-sum:m"}}, l);
  EXPECT_TRUE(last_status_.IsResourceExhausted()) << last_status_.ToString();
  EXPECT_NE(last_status_.message().find("query.max_memory"), std::string::npos);

  l.max_memory = 1 << 20;
  const auto whole = nlohmann::json::parse(
      Run({{"start", std::to_string(T)}, {"end", end}, {"m", "sum:4s-sum:m"}}, l));
  ASSERT_TRUE(last_status_.ok()) << last_status_.ToString();
  const auto each = nlohmann::json::parse(
      Run({{"start", std::to_string(T)}, {"end", end}, {"m", "sum:4s-sum:m{host=*}"}}, l));
  ASSERT_TRUE(last_status_.ok()) << last_status_.ToString();
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_EQ(each.size(), 4u);
  std::map<std::string, double> want;
  for (const auto& r : each) {
    for (const auto& [t, v] : r["dps"].items()) want[t] += v.get<double>();
  }
  std::map<std::string, double> got;
  for (const auto& [t, v] : whole[0]["dps"].items()) got[t] = v.get<double>();
  EXPECT_EQ(got.size(), 500u);
  EXPECT_EQ(got, want);
}

TEST_F(QueryEngineTest, RegexLengthLimit) {
  PutI(Add("m", {{"host", "web01"}}), T, 1);
  QueryLimits l;
  l.max_regex_length = 8;
  Run({{"start", std::to_string(T)}, {"m", "sum:m{host=regexp(web0[0-9]+)}"}}, l);
  EXPECT_TRUE(last_status_.IsInvalidArgument());
  EXPECT_NE(last_status_.message().find("the limit is 8 (query.max_regex_length)"),
            std::string::npos) << last_status_.message();
  Run({{"start", std::to_string(T)}, {"m", "sum:m{host=regexp(web0.)}"}}, l);
  EXPECT_TRUE(last_status_.ok()) << last_status_.ToString();
}

// A deadline is checked while filling empty buckets, where no raw point
// is read.
TEST_F(QueryEngineTest, DeadlineInsideFillLoop) {
  SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 1);
  QueryLimits l;
  l.deadline_ms = 50;
  const auto t0 = std::chrono::steady_clock::now();
  // 1ms buckets over 30 days: 2.6e9 points if nothing stopped it.
  Run({{"start", std::to_string(T)}, {"end", std::to_string(T + 30 * 86400)},
       {"m", "sum:1ms-avg-zero:m"}}, l);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  EXPECT_EQ(last_status_.code(), Status::Code::kDeadlineExceeded) << last_status_.ToString();
  EXPECT_NE(last_status_.message().find("(query.deadline)"), std::string::npos);
}

// The small-query path declines (Busy) a query that would write many
// points or run long, even with few raw points.
TEST_F(QueryEngineTest, ExecuteSmallBoundsOutputAndTime) {
  SeriesId a = Add("m", {{"host", "a"}});
  PutI(a, T, 1);
  QuerySpec known, unknown;
  ASSERT_TRUE(ParseQueryParams({{"start", std::to_string(T)}, {"end", std::to_string(T + 86400)},
                                {"m", "sum:1ms-avg-zero:m"}}, kNow, &known).ok());
  QueryEngine engine(&st_, {});
  std::string body;
  EXPECT_EQ(engine.ExecuteSmall(known, {8, 1000}, &body).code(), Status::Code::kBusy);
  EXPECT_EQ(body, "");
  // Rate over filled buckets: counted as written, and timed.
  ASSERT_TRUE(ParseQueryParams({{"start", std::to_string(T)}, {"end", std::to_string(T + 86400)},
                                {"m", "sum:1ms-avg:m"}}, kNow, &unknown).ok());
  EXPECT_TRUE(engine.ExecuteSmall(unknown, {8, 1000, 2000}, &body).ok());
}

TEST_F(QueryEngineTest, ExecuteSmallAnswersSmallQueriesAndDeclinesBigOnes) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  for (int i = 0; i < 100; ++i) {
    PutI(a, T + i, i);
    PutI(b, T + i, 2 * i);
  }
  const auto spec_of = [](const std::string& m) {
    QuerySpec spec;
    EXPECT_TRUE(ParseQueryParams({{"start", std::to_string(T)}, {"m", m}}, kNow, &spec).ok());
    return spec;
  };
  const QuerySpec one = spec_of("sum:m{host=a}"), both = spec_of("sum:m");
  QueryEngine engine(&st_, {});
  StringSink full;
  ASSERT_TRUE(engine.Execute(one, &full).ok());

  // Within the bound: the same answer as Execute.
  std::string body;
  ASSERT_TRUE(engine.ExecuteSmall(one, {1, 100}, &body).ok());
  EXPECT_EQ(body, full.body);
  // Too many series, too many points, or no bound: Busy, nothing kept.
  EXPECT_EQ(engine.ExecuteSmall(both, {1, 1000}, &body).code(), Status::Code::kBusy);
  EXPECT_EQ(body, "");
  EXPECT_EQ(engine.ExecuteSmall(both, {2, 150}, &body).code(), Status::Code::kBusy);
  EXPECT_EQ(body, "");
  EXPECT_EQ(engine.ExecuteSmall(one, {0, 0}, &body).code(), Status::Code::kBusy);
  // Errors are the query's own, not Busy.
  EXPECT_TRUE(engine.ExecuteSmall(spec_of("sum:nope"), {1, 100}, &body).IsInvalidArgument());
  // The client's own limits still win when they are the stricter ones.
  QueryLimits l;
  l.max_points = 50;
  QueryEngine limited(&st_, l);
  EXPECT_TRUE(limited.ExecuteSmall(one, {1, 1000}, &body).IsResourceExhausted());
  l = {};
  l.max_series = 1;
  QueryEngine few(&st_, l);
  EXPECT_TRUE(few.ExecuteSmall(both, {8, 1000}, &body).IsResourceExhausted());
}

TEST_F(QueryEngineTest, LargeResultsAreStreamedInChunks) {
  SeriesId a = Add("m", {{"host", "a"}});
  for (int i = 0; i < 20000; ++i) PutF(a, T + i, i * 0.5);
  QuerySpec spec;
  ASSERT_TRUE(ParseQueryParams({{"start", std::to_string(T)}, {"end", std::to_string(T + 20000)},
                                {"m", "none:m"}}, kNow, &spec).ok());
  QueryEngine engine(&st_, {});
  StringSink sink;
  ASSERT_TRUE(engine.Execute(spec, &sink).ok());
  EXPECT_GT(sink.writes, 2);
  EXPECT_NE(sink.body.find(K(T + 19999) + ":9999.5}}]"), std::string::npos);
}

TEST_F(QueryEngineTest, TsuidSubQueries) {
  SeriesId a = Add("m", {{"host", "a"}});
  SeriesId b = Add("m", {{"host", "b"}});
  PutI(a, T, 1);
  PutI(b, T, 2);
  ParamList p = {{"start", std::to_string(T)}, {"end", std::to_string(T + 10)},
                 {"tsuid", "sum:000001000001000002"}};
  EXPECT_EQ(Run(p), "[{\"metric\":\"m\",\"tags\":{\"host\":\"b\"},\"aggregateTags\":[],\"dps\":{" +
                        K(T) + ":2}}]");
  p.back().second = "sum:000001000001000001,000001000001000002";
  EXPECT_NE(Run(p).find(K(T) + ":3"), std::string::npos);
  p.back().second = "sum:000009000001000002";
  EXPECT_NE(Run(p).find("No such name for 'metrics'"), std::string::npos);
}

TEST_F(QueryEngineTest, CalendarBucketsInTimeZone) {
  SeriesId a = Add("m", {{"host", "a"}});
  // 2023-11-14 22:30 UTC = 23:30 Berlin (day 14), 23:30 UTC = 00:30 Berlin (day 15).
  PutI(a, 1700001000, 1);
  PutI(a, 1700004600, 5);
  QuerySpec spec;
  ASSERT_TRUE(ParseQueryJson(R"({"start":1699990000,"end":1700010000,"timezone":"Europe/Berlin",
      "queries":[{"aggregator":"sum","metric":"m","downsample":"1dc-sum"}]})", kNow, &spec).ok());
  QueryEngine engine(&st_, {});
  StringSink sink;
  ASSERT_TRUE(engine.Execute(spec, &sink).ok());
  // Berlin midnight of the 15th is 2023-11-14T23:00Z = 1700002800; the bucket
  // of the 14th (1699916400) starts before start and is dropped.
  EXPECT_EQ(sink.body, "[{\"metric\":\"m\",\"tags\":{\"host\":\"a\"},\"aggregateTags\":[],\"dps\":{" +
                           K(1700002800) + ":5.0}}]");
  // The same in UTC: one day bucket from 1699920000 (dropped) -- both points
  // fall in 2023-11-14 UTC.
  ASSERT_TRUE(ParseQueryJson(R"({"start":1699920000,"end":1700010000,
      "queries":[{"aggregator":"sum","metric":"m","downsample":"1dc-sum"}]})", kNow, &spec).ok());
  StringSink sink2;
  ASSERT_TRUE(engine.Execute(spec, &sink2).ok());
  EXPECT_NE(sink2.body.find(K(1699920000) + ":6.0"), std::string::npos) << sink2.body;
}

TEST_F(QueryEngineTest, SuggestLookupLast) {
  SeriesId a = Add("sys.cpu", {{"host", "web01"}});
  SeriesId b = Add("sys.mem", {{"host", "web02"}});
  PutI(a, T, 1);
  PutF(a, T + 5, 2.5);
  PutI(b, T, 7);
  QueryEngine e(&st_, {});
  std::string j;
  ASSERT_TRUE(e.Suggest("metrics", "sys", 0, &j).ok());
  EXPECT_EQ(j, "[\"sys.cpu\",\"sys.mem\"]");
  ASSERT_TRUE(e.Suggest("metrics", "cpu", 0, &j).ok());
  EXPECT_EQ(j, "[]");
  ASSERT_TRUE(e.Suggest("tagv", "web", 1, &j).ok());
  EXPECT_EQ(j, "[\"web01\"]");
  EXPECT_EQ(e.Suggest("bad", "", 0, &j).message(), "Invalid 'type' parameter:bad");

  LookupRequest lr;
  ASSERT_TRUE(ParseLookupParams({{"m", "sys.cpu{host=*}"}, {"limit", "0"}}, &lr).ok());
  ASSERT_TRUE(e.Lookup(lr, &j).ok());
  EXPECT_NE(j.find("\"results\":[{\"tsuid\":\"000001000001000001\",\"metric\":\"sys.cpu\","
                   "\"tags\":{\"host\":\"web01\"}}]"), std::string::npos);
  ASSERT_TRUE(ParseLookupParams({{"m", "nope"}}, &lr).ok());
  Status s = e.Lookup(lr, &j);
  EXPECT_TRUE(s.IsNotFound());

  LastRequest last;
  ASSERT_TRUE(ParseLastParams({{"timeseries", "sys.cpu{host=web01}"}, {"resolve", ""}}, &last).ok());
  ASSERT_TRUE(e.Last(last, kNow, &j).ok());
  EXPECT_EQ(j, "[{\"metric\":\"sys.cpu\",\"tags\":{\"host\":\"web01\"},\"timestamp\":" +
                   std::to_string((T + 5) * 1000) + ",\"value\":\"2.5\",\"tsuid\":\"000001000001000001\"}]");
}

}  // namespace
}  // namespace sundial::query

namespace sundial::query {
namespace {

// Unknown names in /api/query/last are 400s naming the kind, as OpenTSDB's
// UID lookups throw NoSuchUniqueName (TestQueryRpcLastDataPoint qsMetricNSUN*).
TEST_F(QueryEngineTest, LastUnknownNamesAreErrors) {
  PutI(Add("sys.cpu", {{"host", "web01"}}), T, 1);
  QueryEngine e(&st_, {});
  std::string j;
  const auto last = [&](const std::string& ts) {
    LastRequest lr;
    EXPECT_TRUE(ParseLastParams({{"timeseries", ts}}, &lr).ok());
    return e.Last(lr, kNow, &j);
  };
  Status s = last("sys.nice{host=web01}");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message().substr(0, s.message().find(kDetailsSeparator)),
            "No such name for 'metrics': 'sys.nice'");
  s = last("sys.cpu{dc=web01}");
  EXPECT_EQ(s.message().substr(0, s.message().find(kDetailsSeparator)),
            "No such name for 'tagk': 'dc'");
  s = last("sys.cpu{host=web03}");
  EXPECT_EQ(s.message().substr(0, s.message().find(kDetailsSeparator)),
            "No such name for 'tagv': 'web03'");
  ASSERT_TRUE(last("sys.cpu{host=*}").ok());
  EXPECT_NE(j.find("000001000001000001"), std::string::npos);
}

}  // namespace
}  // namespace sundial::query
