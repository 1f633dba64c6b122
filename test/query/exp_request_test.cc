#include "sundial/query/exp_request.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace sundial::query {
namespace {

constexpr Timestamp kNow = 1700000000000;

// A valid request with `patch` spliced in as extra top-level members (a
// later duplicate key replaces the earlier one, as with Jackson).
std::string Body(const std::string& patch = "") {
  return R"({"time":{"start":"1h-ago","aggregator":"sum"},)"
         R"("filters":[{"id":"f1","tags":[{"type":"wildcard","tagk":"host","filter":"*","groupBy":true}]}],)"
         R"("metrics":[{"id":"a","metric":"sys.cpu","filter":"f1"},{"id":"b","metric":"sys.mem"}],)"
         R"("expressions":[{"id":"e","expr":"a + b"}])" +
         (patch.empty() ? "" : "," + patch) + "}";
}

// The message (and details after " | ") of parsing body.
std::string Error(const std::string& body) {
  ExpRequest r;
  const Status s = ParseExpRequest(body, kNow, &r);
  if (s.ok()) return "OK";
  std::string message, details;
  SplitErrorDetails(s.message(), &message, &details);
  return details.empty() ? message : message + " | " + details;
}

TEST(ExpRequest, ParsesAFullRequest) {
  ExpRequest r;
  const std::string body = R"({"name":"q","time":{"start":1699996400,"end":"1699999999",
      "timezone":"UTC","aggregator":"SUM","rate":"true",
      "downsampler":{"interval":"1m","aggregator":"avg","fillPolicy":{"policy":"nan"}}},
    "filters":[{"id":"f1","explicitTags":true,"tags":[{"type":"literal_or","tagk":"host",
      "filter":"web01|web02","group_by":true},{"type":"regexp","tagk":"dc","filter":"l.*"}]}],
    "metrics":[{"id":"a","metric":"sys.cpu","filter":"f1","aggregator":"max",
                "fillPolicy":{"value":5},"timeOffset":"1d-ago","unknown":1},
               {"id":"b","metric":"sys.mem","fillPolicy":{"policy":"zero"}}],
    "expressions":[{"id":"e2","expr":"e * 2"},
                   {"id":"e","expr":"a / b","fillPolicy":{"policy":"scalar","value":-1},
                    "join":{"operator":"Intersection","useQueryTags":true,"includeAggTags":false}}],
    "outputs":[{"id":"e2","alias":"twice"},{"id":"a"}]})";
  const Status s = ParseExpRequest(body, kNow, &r);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(r.start_ms, 1699996400000);
  EXPECT_EQ(r.end_ms, 1699999999000);
  EXPECT_TRUE(r.time.rate);
  EXPECT_EQ(r.time.downsampler.fill.policy, FillPolicy::kNaN);
  ASSERT_EQ(r.filters.size(), 1u);
  EXPECT_TRUE(r.filters[0].explicit_tags);
  ASSERT_EQ(r.filters[0].tags.size(), 2u);
  EXPECT_TRUE(r.filters[0].tags[0].group_by());
  EXPECT_FALSE(r.filters[0].tags[1].group_by());
  EXPECT_EQ(r.metrics[0].fill.policy, FillPolicy::kScalar);  // no policy, value 5
  EXPECT_EQ(r.metrics[0].fill.value, 5);
  EXPECT_EQ(r.metrics[1].fill.policy, FillPolicy::kZero);
  EXPECT_TRUE(r.expressions[1].join.intersection);
  EXPECT_TRUE(r.expressions[1].join.use_query_tags);
  EXPECT_FALSE(r.expressions[1].join.include_agg_tags);
  EXPECT_EQ(r.expressions[1].fill.value, -1);
  // "e2" uses "e": e is evaluated first.
  EXPECT_EQ(r.eval_order, (std::vector<size_t>{1, 0}));
  EXPECT_EQ(r.outputs[0].alias, "twice");
  EXPECT_FALSE(r.outputs[1].has_alias);

  std::string echo;
  AppendExpRequestJson(r, &echo);
  EXPECT_NE(echo.find(R"("name":"q","time":{"start":"1699996400","end":"1699999999")"),
            std::string::npos) << echo;
  EXPECT_NE(echo.find(R"("downsampler":{"interval":"1m","aggregator":"avg","fillPolicy":{"policy":"nan","value":"NaN"}})"),
            std::string::npos) << echo;
  EXPECT_NE(echo.find(R"("fillPolicy":{"policy":"scalar","value":5.0})"), std::string::npos);
  EXPECT_NE(echo.find(R"("join":{"operator":"intersection","useQueryTags":true,"includeAggTags":false})"),
            std::string::npos);
  EXPECT_NE(echo.find(R"("outputs":[{"id":"e2","alias":"twice"},{"id":"a","alias":null}])"),
            std::string::npos);
}

// Query.validate() and the nested pojos' validate(), in their order.
TEST(ExpRequest, ValidationMessages) {
  EXPECT_EQ(Error(Body()), "OK");
  EXPECT_EQ(Error(R"({"metrics":[{"id":"a","metric":"m"}]})"), "missing time");
  EXPECT_EQ(Error(Body(R"("time":{"aggregator":"sum"})")), "Invalid time: missing or empty start");
  EXPECT_EQ(Error(Body(R"("time":{"start":"1h-ago"})")),
            "Invalid time: Missing or empty aggregator");
  EXPECT_EQ(Error(Body(R"("time":{"start":"1h-ago","aggregator":"bogus"})")),
            "Invalid time: Invalid aggregator");
  EXPECT_EQ(Error(Body(R"("time":{"start":"1h-ago","aggregator":"sum","downsampler":{"aggregator":"avg"}})")),
            "Invalid time: Missing or empty interval");
  EXPECT_EQ(Error(Body(R"("time":{"start":"1h-ago","aggregator":"sum","downsampler":{"interval":"1m"}})")),
            "Invalid time: Missing or empty aggregator");
  EXPECT_EQ(Error(Body(R"("time":{"start":"1x-ago","aggregator":"sum"})")).rfind("Invalid time: ", 0),
            0u);
  EXPECT_EQ(Error(Body(R"("metrics":[])")), "missing or empty metrics");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m"},{"id":"a","metric":"n"}])")),
            "duplicated metric id: a");
  EXPECT_EQ(Error(Body(R"("filters":[{"id":"f1"},{"id":"f1"}])")), "duplicated filter id: f1");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"a","expr":"b"}])")),
            "Duplicated variable or expression id: a");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a"}])")),
            "Invalid metric at index 0: missing or empty metric");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m"},{"metric":"m"}])")),
            "Invalid metric at index 1: missing or empty id");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m","aggregator":"nope"}])")),
            "Invalid metric at index 0: Invalid aggregator");
  EXPECT_EQ(Error(Body(R"("filters":[{"tags":[]}])")),
            "Invalid filter at index 0: Missing or empty id");
  EXPECT_EQ(Error(Body(R"("expressions":[{"expr":"a"}])")),
            "Invalid expression at index 0: missing or empty id");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"e"}])")),
            "Invalid expression at index 0: missing or empty expr");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"e","expr":"a +"}])")),
            "Invalid expression at index 0: Invalid expression [a +]: expected a value at position 3");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m","filter":"f9"}])")),
            "unrecognized filter id f9 in metric a");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"e","expr":"a + c"}])")),
            "Expression [a + c] was missing input c");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"e","expr":"1 + 2"}])")),
            "The expression didn't appear to have any variables");
  EXPECT_EQ(Error(Body(R"("time":{"start":"1h-ago","end":"2h-ago","aggregator":"sum"})")),
            "End time [1699992800000] must be greater than or equal to the start time "
            "[1699996400000]");
}

TEST(ExpRequest, NestedExpressionsMustNotCycle) {
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"e","expr":"e + a"}])")),
            "Self referencing expression found: e");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"x","expr":"y + a"},{"id":"y","expr":"z"},)"
                       R"({"id":"z","expr":"x * 2"}])")),
            "Circular reference found: z");
  ExpRequest r;
  ASSERT_TRUE(ParseExpRequest(Body(R"("expressions":[{"id":"x","expr":"y + z"},)"
                                   R"({"id":"y","expr":"z * a"},{"id":"z","expr":"a + b"}])"),
                              kNow, &r).ok());
  EXPECT_EQ(r.eval_order, (std::vector<size_t>{2, 1, 0}));
}

// Errors raised while Jackson reads the JSON (builders validate ids and
// fill policies as they are set).
TEST(ExpRequest, JsonErrors) {
  EXPECT_EQ(Error(""), "Missing message content | Supply valid JSON formatted data in the body "
                       "of your request");
  EXPECT_EQ(Error("{"), "Unable to parse the given JSON | Malformed JSON in the request body");
  EXPECT_EQ(Error("[]"), "Unable to parse the given JSON | The query must be a JSON object");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a-b","metric":"m"}])")),
            "Unable to parse the given JSON | Invalid id (\"a-b\"): illegal character: -");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"7","metric":"m"}])")),
            "Unable to parse the given JSON | The ID cannot be an integer");
  EXPECT_EQ(Error(Body(R"("outputs":[{"id":""}])")),
            "Unable to parse the given JSON | The ID cannot be null or empty");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m","fillPolicy":{"policy":"zero","value":1}}])")),
            "Unable to parse the given JSON | The value for ZERO must be 0");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m","fillPolicy":{"policy":"nan","value":1}}])")),
            "Unable to parse the given JSON | The value for NONE and NAN must be NaN");
  EXPECT_EQ(Error(Body(R"("metrics":[{"id":"a","metric":"m","fillPolicy":{"policy":"nul","value":1}}])")),
            "Unable to parse the given JSON | Unrecognized fill policy: nul");
  EXPECT_EQ(Error(Body(R"("expressions":[{"id":"e","expr":"a","join":{"operator":"xor"}}])")),
            "Unable to parse the given JSON | Unrecognized set operator: xor");
  EXPECT_EQ(Error(Body(R"("filters":[{"id":"f1","tags":[{"type":"bogus","tagk":"h","filter":"x"}]}])")),
            "Unable to parse the given JSON | Could not find a tag value filter of the type: bogus");
  EXPECT_EQ(Error(Body(R"("metrics":{"id":"a"})")),
            "Unable to parse the given JSON | Cannot deserialize field 'metrics'");
  std::string many = R"("metrics":[)";
  for (size_t i = 0; i <= kMaxExpItems; ++i) {
    many += (i ? "," : "") + std::string(R"({"id":"m)") + std::to_string(i) + R"(","metric":"x"})";
  }
  EXPECT_EQ(Error(Body(many + "]")), "Too many metrics: at most 256 per query");
}

TEST(ExpRequest, FillPolicyRules) {
  ExpRequest r;
  ASSERT_TRUE(ParseExpRequest(Body(R"("metrics":[{"id":"a","metric":"m","fillPolicy":{"value":"NaN"}},)"
                                   R"({"id":"b","metric":"m","fillPolicy":{"policy":"NULL"}},)"
                                   R"({"id":"c","metric":"m","fillPolicy":{}}])"),
                              kNow, &r).ok());
  EXPECT_EQ(r.metrics[0].fill.policy, FillPolicy::kNaN);
  EXPECT_TRUE(std::isnan(r.metrics[0].fill.value));
  EXPECT_EQ(r.metrics[1].fill.policy, FillPolicy::kNull);
  EXPECT_TRUE(std::isnan(r.metrics[1].fill.value));
  EXPECT_EQ(r.metrics[2].fill.policy, FillPolicy::kZero);
}

TEST(ExpRequest, ValidIds) {
  EXPECT_TRUE(ValidateExpId("a").ok());
  EXPECT_TRUE(ValidateExpId("sys01").ok());
  EXPECT_TRUE(ValidateExpId("12").ok());
  EXPECT_FALSE(ValidateExpId("1").ok());
  EXPECT_FALSE(ValidateExpId("a_b").ok());
  EXPECT_FALSE(ValidateExpId("").ok());
}

}  // namespace
}  // namespace sundial::query
