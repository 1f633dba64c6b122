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

// Every error message of the GET parser, input by input.
TEST(QuerySpec, GetErrorMessagesPinned) {
  const std::pair<ParamList, const char*> cases[] = {
      {{{"start", ""}, {"m", "sum:x"}}, "Missing parameter <code>start</code>"},
      {{{"start", "1h-ago"}, {"start", ""}, {"m", "sum:x"}}, "Missing parameter <code>start</code>"},
      {{{"start", "1h-ago"}, {"tz", "Not/AZone"}, {"m", "sum:x"}},
       "Invalid timezone name: Not/AZone"},
      {{{"start", "1h-ago"}, {"timezone", "Not/AZone"}, {"m", "sum:x"}},
       "Invalid timezone name: Not/AZone"},
      {{{"start", "abc"}, {"m", "x"}}, "Invalid time: abc. For input string: \"abc\""},
      {{{"start", "1"}, {"end", "abc"}, {"m", "x"}},
       "Invalid time: abc. For input string: \"abc\""},
      {{{"start", "1h-ago"}, {"m", ":x"}}, "Missing the aggregation function"},
      {{{"start", "1h-ago"}, {"m", "sum:"}}, "Metric cannot be null or empty"},
      {{{"start", "1h-ago"}, {"m", "sum:{a=b}"}}, "Missing the metric or tsuids, provide at least one"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=b}}"}}, "Missing '{' in: x{a=b}}"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=b}{c}"}}, "When parsing filter 'c': invalid tag: c"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=b=c}"}}, "When parsing tag 'a=b=c': invalid tag: a=b=c"},
      {{{"start", "1h-ago"}, {"m", "sum:x{=b}"}}, "When parsing tag '=b': invalid tag: =b"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=}"}}, "When parsing tag 'a=': invalid tag: a="},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=b,}"}}, "When parsing tag '': invalid tag: "},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=Bad(y)}"}},
       "When parsing tag 'a=Bad(y)': Could not find a tag value filter of the type: bad"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=literal_or(y}"}},
       "When parsing tag 'a=literal_or(y': Filter must end with a ')': literal_or(y"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=wildcard(y)}"}},
       "When parsing tag 'a=wildcard(y)': Filter must contain an asterisk"},
      {{{"start", "1h-ago"}, {"m", "sum:x{a=literal_or()}"}},
       "When parsing tag 'a=literal_or()': Filter cannot be null or empty"},
      {{{"start", "1h-ago"}, {"m", "sum:rate{counter:x"}},
       "Invalid rate options specification: rate{counter"},
      {{{"start", "1h-ago"}, {"m", "sum:Rate{c}x:x"}}, "Invalid rate options specification: Rate{c}x"},
      {{{"start", "1h-ago"}, {"m", "sum:rate{a,b,c,d}:x"}},
       "Incorrect number of values in rate options specification, must be counter[,counter max "
       "value,reset value], recieved: 4 parts"},
      {{{"start", "1h-ago"}, {"m", "sum:rate{counter,1,z}:x"}},
       "Reset value of counter was not a number, received 'z'"},
      {{{"start", "1h-ago"}, {"m", "sum:rate{counter,9223372036854775808}:x"}},
       "Max value of counter was not a number, received '9223372036854775808'"},
      {{{"start", "1h-ago"}, {"m", "sum:rate{counter,1,-9223372036854775809}:x"}},
       "Reset value of counter was not a number, received '-9223372036854775809'"},
      {{{"start", "1h-ago"}, {"m", "sum:rate{counter,-}:x"}},
       "Max value of counter was not a number, received '-'"},
      {{{"start", "1h-ago"}, {"m", "sum:1m:x"}},
       "Invalid downsampling specifier '1m': must provide at least interval and function"},
      {{{"start", "1h-ago"}, {"m", "sum:1m--:x"}},
       "Invalid downsampling specifier '1m--': must provide at least interval and function"},
      {{{"start", "1h-ago"}, {"m", "sum:1m-sum-zero-x:x"}},
       "Invalid downsampling specifier '1m-sum-zero-x': must consist of interval, function, and "
       "optional fill policy"},
      {{{"start", "1h-ago"}, {"m", "sum:1000001sc-sum:x"}},
       "Invalid downsampling specifier '1000001sc-sum': invalid calendar interval"},
      {{{"start", "1h-ago"}, {"m", "sum:1xsc-sum:x"}},
       "Invalid downsampling specifier '1xsc-sum': invalid calendar interval"},
      {{{"start", "1h-ago"}, {"m", "sum:1xc-sum:x"}}, "Invalid duration (suffix): 1x"},
      {{{"start", "1h-ago"}, {"m", "sum:1m-avg-ZeRoo:x"}}, "Unrecognized fill policy: zeroo"},
      {{{"start", "1h-ago"}, {"tsuid", "000001"}},
       "Invalid parameter tsuid=000001 (not enough :-separated parts)"},
      {{{"start", "1h-ago"}, {"tsuids", "a:b:c:d:e:f"}},
       "Invalid parameter tsuid=a:b:c:d:e:f (too many :-separated parts)"},
      {{{"start", "1h-ago"}, {"tsuid", "sum:00000g"}}, "Invalid TSUID: 00000g"},
      {{{"start", "1h-ago"}, {"tsuid", "sum:000001,001"}}, "Invalid TSUID: 001"},
      {{{"start", "1h-ago"}, {"tsuid", "sum:,,"}}, "Missing the metric or tsuids, provide at least one"},
      {{{"start", "1h-ago"}, {"tsuid", "foo:000001"}}, "No such aggregation function: foo"},
      // Errors come in parameter order: the first bad sub-query wins.
      {{{"start", "1h-ago"}, {"m", "foo:x"}, {"m", "bar:x"}}, "No such aggregation function: foo"},
      // The time range is checked before any sub-query.
      {{{"m", "foo:x"}, {"start", "abc"}}, "Invalid time: abc. For input string: \"abc\""},
  };
  for (const auto& [params, want] : cases) {
    EXPECT_EQ(GetErr(params), want) << (params.size() > 1 ? params[1].second : params[0].second);
  }
}

TEST(QuerySpec, GetFlagsAndLastWins) {
  QuerySpec spec;
  ASSERT_TRUE(ParseGet({{"start", "abc"}, {"start", "1000"}, {"end", "2000"}, {"m", "sum:x"},
                        {"ms", ""}, {"arrays", ""}, {"show_tsuids", ""}, {"show_query", "false"},
                        {"no_annotations", ""}, {"global_annotations", ""}, {"show_stats", ""},
                        {"show_summary", ""}, {"tz", "UTC"}, {"timezone", "Europe/Berlin"}},
                       &spec)
                  .ok());
  EXPECT_EQ(spec.start_ms, 1000000);
  EXPECT_EQ(spec.end_ms, 2000000);
  EXPECT_TRUE(spec.ms_resolution && spec.arrays && spec.show_tsuids && spec.show_query &&
              spec.no_annotations && spec.global_annotations && spec.show_stats &&
              spec.show_summary);
  EXPECT_EQ(spec.tz.name(), "UTC");  // tz wins over timezone
  QuerySpec plain;
  ASSERT_TRUE(ParseGet({{"start", "1000"}, {"end", ""}, {"m", "sum:x"}, {"M", "bad"}}, &plain).ok());
  EXPECT_EQ(plain.end_ms, kNow);  // empty end means now
  EXPECT_FALSE(plain.ms_resolution || plain.arrays || plain.show_tsuids || plain.show_query ||
               plain.no_annotations || plain.global_annotations || plain.show_stats ||
               plain.show_summary);
  ASSERT_EQ(plain.queries.size(), 1u);
}

TEST(QuerySpec, GetSubQueryDetails) {
  QuerySpec spec;
  ASSERT_TRUE(ParseGet({{"start", "1"},
                        {"m", "sum:Rate{dropcounter,,5}:2Hc-p99-NaN:Explicit_Tags:x{a=b|c,h=*}{d=iLiteral_or(Q|r)}"},
                        {"tsuid", "avg:1m-avg:rate:00000a,,0000Bb"},
                        {"m", "sum:x{a=web*}{a=WEB*}"},
                        {"m", "sum:0ALL-sum-Zero:x{a=b,a=b}"},
                        {"m", "sum:y{a=web*}{a=web*}"},
                        {"m", "sum:y{a|literal_or|x=y}{a=x|literal_or|y}"}},
                       &spec)
                  .ok());
  ASSERT_EQ(spec.queries.size(), 6u);
  const SubQuery& m = spec.queries[0];
  EXPECT_EQ(m.aggregator->name, "sum");
  EXPECT_TRUE(m.rate && m.has_rate_options && m.explicit_tags);
  EXPECT_TRUE(m.rate_options.drop_resets && m.rate_options.counter);
  EXPECT_EQ(m.rate_options.counter_max, INT64_MAX);
  EXPECT_EQ(m.rate_options.reset_value, 5);
  EXPECT_TRUE(m.downsample.enabled && m.downsample.calendar);
  EXPECT_EQ(m.downsample.count, 2);
  EXPECT_EQ(m.downsample.unit, CalendarUnit::kHour);
  EXPECT_EQ(m.downsample.interval_ms, 7200000);
  EXPECT_EQ(m.downsample.fn->name, "p99");
  EXPECT_EQ(m.downsample.fill, FillPolicy::kNaN);
  EXPECT_EQ(m.downsample.text, "2Hc-p99-NaN");
  ASSERT_EQ(m.filters.size(), 3u);
  EXPECT_EQ(m.filters[0].Key(), "d|iliteral_ori|Q|r");
  EXPECT_EQ(m.filters[1].Key(), "a|literal_or|b|c");
  EXPECT_EQ(m.filters[2].Key(), "h|wildcardi|*");
  EXPECT_TRUE(m.filters[2].group_by());
  const SubQuery& t = spec.queries[1];
  EXPECT_TRUE(t.metric.empty());
  EXPECT_EQ(t.tsuids, (std::vector<std::string>{"00000A", "0000BB"}));
  EXPECT_TRUE(t.rate && !t.has_rate_options);
  // Filters compare case-sensitively, so these two stay apart.
  ASSERT_EQ(spec.queries[2].filters.size(), 2u);
  EXPECT_FALSE(spec.queries[2].filters[0].group_by());
  EXPECT_EQ(spec.queries[2].filters[0].filter(), "WEB*");
  EXPECT_TRUE(spec.queries[2].filters[1].group_by());
  const SubQuery& all = spec.queries[3];
  EXPECT_TRUE(all.downsample.all);
  EXPECT_EQ(all.downsample.fill, FillPolicy::kZero);
  ASSERT_EQ(all.filters.size(), 1u);  // a duplicate filter is dropped
  EXPECT_TRUE(all.filters[0].group_by());
  EXPECT_EQ(spec.queries[3].index, 3);
  QuerySpec limits;
  ASSERT_TRUE(ParseGet({{"start", "1"},
                        {"m", "sum:rate{counter,9223372036854775807,-9223372036854775808}:x"},
                        {"m", "sum:rate{counter,+000000000000000000000012,-12}:x"}},
                       &limits)
                  .ok());
  EXPECT_EQ(limits.queries[0].rate_options.counter_max, INT64_MAX);
  EXPECT_EQ(limits.queries[0].rate_options.reset_value, INT64_MIN);
  EXPECT_EQ(limits.queries[1].rate_options.counter_max, 12);
  EXPECT_EQ(limits.queries[1].rate_options.reset_value, -12);
  // A group-by duplicate of a filter marks the filter group-by.
  ASSERT_EQ(spec.queries[4].filters.size(), 1u);
  EXPECT_TRUE(spec.queries[4].filters[0].group_by());
  // Filters are the same when their keys ("tagk|type|filter") are, even
  // when the parts differ.
  ASSERT_EQ(spec.queries[5].filters.size(), 1u);
  EXPECT_EQ(spec.queries[5].filters[0].tagk(), "a");
  EXPECT_TRUE(spec.queries[5].filters[0].group_by());
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

namespace sundial::query {
namespace {

TEST(QuerySpec, DeleteFlag) {
  const auto get = [](const std::string& v) {
    QuerySpec spec;
    EXPECT_TRUE(ParseQueryParams({{"start", "1"}, {"m", "sum:x"}, {"delete", v}}, kNow, &spec).ok());
    return spec.delete_data;
  };
  EXPECT_TRUE(get(""));  // &delete
  EXPECT_TRUE(get("true"));
  EXPECT_FALSE(get("false"));
  QuerySpec spec;
  ASSERT_TRUE(ParseQueryParams({{"start", "1"}, {"m", "sum:x"}}, kNow, &spec).ok());
  EXPECT_FALSE(spec.delete_data);
  ASSERT_TRUE(ParseQueryJson(R"({"start":1,"delete":true,"queries":[{"aggregator":"sum","metric":"x"}]})",
                             kNow, &spec)
                  .ok());
  EXPECT_TRUE(spec.delete_data);
  EXPECT_FALSE(ParseQueryJson(R"({"start":1,"delete":"maybe","queries":[{"aggregator":"sum","metric":"x"}]})",
                              kNow, &spec)
                   .ok());
}

}  // namespace
}  // namespace sundial::query
