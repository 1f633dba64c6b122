#include "sundial/query/query_spec.h"

#include <gtest/gtest.h>

namespace sundial::query {
namespace {

constexpr Timestamp kNow = 1700000000000;

Status ParseGet(ParamList p, QuerySpec* spec) { return ParseQueryParams(p, kNow, spec); }

std::string GetErr(ParamList p) {
  QuerySpec spec;
  Status s = ParseGet(std::move(p), &spec);
  EXPECT_FALSE(s.ok());
  std::string m, d;
  SplitErrorDetails(s.message(), &m, &d);
  return m;
}

TEST(QuerySpec, GetExamplesFromOpenTSDBTests) {
  for (const char* m : {"sum:sys.cpu.0", "sum:rate:sys.cpu.0", "sum:1h-avg:sys.cpu.0",
                        "sum:1h-avg:rate:sys.cpu.0", "sum:sys.cpu.0{host=web01}",
                        "sum:sys.cpu.0{host=regexp(something(foo|bar))}",
                        "sum:sys.cpu.0{host=*quirm}", "sum:sys.cpu.0{}{host=wildcard(*quirm)}",
                        "sum:sys.cpu.0{colo=lga}{host=wildcard(*quirm)}",
                        "sum:sys.cpu.0{host=quirm|tsort}{host=wildcard(*quirm)}",
                        "sum:sys.cpu.0{}{}", "sum:explicit_tags:sys.cpu.0{host=web01}",
                        "sum:0all-max:sys.cpu.0", "sum:1dc-avg-zero:sys.cpu.0"}) {
    QuerySpec spec;
    Status s = ParseGet({{"start", "1h-ago"}, {"m", m}}, &spec);
    EXPECT_TRUE(s.ok()) << m << ": " << s.ToString();
  }
}

TEST(QuerySpec, GetDetails) {
  QuerySpec spec;
  ASSERT_TRUE(ParseGet({{"start", "1h-ago"},
                        {"end", "5m-ago"},
                        {"m", "sum:1m-avg-nan:rate{counter,100,5}:sys.cpu{host=a|b}{dc=wildcard(x*)}"},
                        {"m", "sum:1m-avg-nan:rate{counter,100,5}:sys.cpu{host=a|b}{dc=wildcard(x*)}"},
                        {"arrays", "false"},
                        {"ms", ""}},
                       &spec).ok());
  EXPECT_EQ(spec.start_ms, kNow - 3600000);
  EXPECT_EQ(spec.end_ms, kNow - 300000);
  EXPECT_TRUE(spec.arrays);  // presence-only flag
  EXPECT_TRUE(spec.ms_resolution);
  ASSERT_EQ(spec.queries.size(), 1u);  // duplicates removed
  const SubQuery& q = spec.queries[0];
  EXPECT_EQ(q.metric, "sys.cpu");
  EXPECT_TRUE(q.rate);
  EXPECT_TRUE(q.rate_options.counter);
  EXPECT_EQ(q.rate_options.counter_max, 100);
  EXPECT_EQ(q.rate_options.reset_value, 5);
  EXPECT_EQ(q.downsample.interval_ms, 60000);
  EXPECT_EQ(q.downsample.fill, FillPolicy::kNaN);
  ASSERT_EQ(q.filters.size(), 2u);
  EXPECT_EQ(q.filters[0].tagk(), "dc");  // second braces parsed first
  EXPECT_FALSE(q.filters[0].group_by());
  EXPECT_EQ(q.filters[1].tagk(), "host");
  EXPECT_TRUE(q.filters[1].group_by());
}

TEST(QuerySpec, GetErrors) {
  EXPECT_EQ(GetErr({{"m", "sum:x"}}), "Missing parameter <code>start</code>");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}}), "Missing sub queries");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sys.cpu"}}),
            "Invalid parameter m=sys.cpu (not enough :-separated parts)");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "a:b:c:d:e:f"}}),
            "Invalid parameter m=a:b:c:d:e:f (too many :-separated parts)");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "foo:sys.cpu"}}), "No such aggregation function: foo");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:10m-avg-badbadbad:sys.cpu.user"}}),
            "Unrecognized fill policy: badbadbad");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:1m-none:x"}}),
            "cannot use the NONE aggregator for downsampling");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:1m-foo:x"}}), "No such downsampling function: foo");
  // Bucket arithmetic must not overflow: absurd intervals are refused.
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:9223372036854775807ms-sum:x"}}),
            "Invalid downsampling specifier '9223372036854775807ms-sum': interval longer than "
            "1000 years");
  QuerySpec long_ok;
  EXPECT_TRUE(ParseGet({{"start", "1h-ago"}, {"m", "sum:1000y-sum:x"}}, &long_ok).ok());
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:x{host=a"}}), "Missing '}' at the end of: x{host=a");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:x{host}"}}),
            "When parsing tag 'host': invalid tag: host");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"m", "sum:rate{counter,abc}:x"}}),
            "Max value of counter was not a number, received 'abc'");
  EXPECT_EQ(GetErr({{"start", "1h-ago"}, {"end", "2h-ago"}, {"m", "sum:x"}}),
            "End time [1699992800000] must be greater than or equal to the start time [1699996400000]");
}

Status Post(const std::string& body, QuerySpec* spec) { return ParseQueryJson(body, kNow, spec); }

TEST(QuerySpec, PostGrafanaBody) {
  QuerySpec spec;
  Status s = Post(R"({"start":1699996400000,"queries":[{"metric":"proc.loadavg.1min",
      "aggregator":"sum","downsample":"1m-avg","rate":true,"refId":"A","hide":false,
      "rateOptions":{"counter":false,"counterMax":4294967295.0,"resetValue":0,"dropResets":true},
      "filters":[{"type":"wildcard","tagk":"host","filter":"*","groupBy":true}],
      "explicitTags":false}],"msResolution":false,"globalAnnotations":true,"showQuery":true})",
                  &spec);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(spec.start_ms, 1699996400000);
  EXPECT_EQ(spec.end_ms, kNow);
  EXPECT_TRUE(spec.show_query);
  EXPECT_TRUE(spec.global_annotations);
  EXPECT_FALSE(spec.show_stats);
  const SubQuery& q = spec.queries[0];
  EXPECT_EQ(q.rate_options.counter_max, 4294967295);
  EXPECT_TRUE(q.rate_options.drop_resets);
  ASSERT_EQ(q.filters.size(), 1u);
  EXPECT_TRUE(q.filters[0].group_by());
  ASSERT_TRUE(Post(R"({"start":1,"queries":[{"aggregator":"sum","metric":"m"}],
      "showStats":true,"showSummary":"true"})", &spec).ok());
  EXPECT_TRUE(spec.show_stats);
  EXPECT_TRUE(spec.show_summary);
  // Go backend: seconds, and string-typed numbers.
  ASSERT_TRUE(Post(R"({"start":1699996400,"end":"1699999999","queries":[{"aggregator":"avg",
      "metric":"m","rate":"true"}]})", &spec).ok());
  EXPECT_EQ(spec.start_ms, 1699996400000);
  EXPECT_EQ(spec.end_ms, 1699999999000);
  EXPECT_TRUE(spec.queries[0].rate);
}

TEST(QuerySpec, PostTagsAndFiltersLastWins) {
  QuerySpec spec;
  ASSERT_TRUE(Post(R"({"start":1,"queries":[{"aggregator":"sum","metric":"m",
      "filters":[{"type":"literal_or","tagk":"dc","filter":"x","groupBy":false}],
      "tags":{"host":"*"}}]})", &spec).ok());
  ASSERT_EQ(spec.queries[0].filters.size(), 1u);
  EXPECT_EQ(spec.queries[0].filters[0].tagk(), "host");
  ASSERT_TRUE(Post(R"({"start":1,"queries":[{"aggregator":"sum","metric":"m",
      "tags":{"host":"*"},
      "filters":[{"type":"literal_or","tagk":"dc","filter":"x","group_by":true}]}]})", &spec).ok());
  ASSERT_EQ(spec.queries[0].filters.size(), 1u);
  EXPECT_EQ(spec.queries[0].filters[0].tagk(), "dc");
  EXPECT_TRUE(spec.queries[0].filters[0].group_by());
}

std::pair<std::string, std::string> PostErr(const std::string& body) {
  QuerySpec spec;
  Status s = Post(body, &spec);
  EXPECT_FALSE(s.ok()) << body;
  std::pair<std::string, std::string> r;
  SplitErrorDetails(s.message(), &r.first, &r.second);
  return r;
}

TEST(QuerySpec, PostErrors) {
  EXPECT_EQ(PostErr("").first, "Missing message content");
  EXPECT_EQ(PostErr("{bad").first, "Unable to parse the given JSON");
  EXPECT_EQ(PostErr(R"({"queries":[{"aggregator":"sum","metric":"m"}]})").first, "Missing start time");
  EXPECT_EQ(PostErr(R"({"start":1})").first, "Missing queries");
  EXPECT_EQ(PostErr(R"({"start":1,"queries":[{"metric":"m"}]})").first,
            "Missing the aggregation function");
  EXPECT_EQ(PostErr(R"({"start":1,"queries":[{"aggregator":"x","metric":"m"}]})").first,
            "No such aggregation function: x");
  EXPECT_EQ(PostErr(R"({"start":1,"queries":[{"aggregator":"sum"}]})").first,
            "Missing the metric or tsuids, provide at least one");
  auto e = PostErr(R"({"start":1,"queries":[{"aggregator":"sum","metric":"m",
      "filters":[{"type":"nope","tagk":"h","filter":"x"}]}]})");
  EXPECT_EQ(e.first, "Unable to parse the given JSON");
  EXPECT_EQ(e.second, "Could not find a tag value filter of the type: nope");
  EXPECT_EQ(PostErr(R"({"start":1,"timezone":"Mars/Base","queries":[{"aggregator":"sum","metric":"m"}]})").first,
            "Invalid timezone name: Mars/Base");
}

}  // namespace
}  // namespace sundial::query
