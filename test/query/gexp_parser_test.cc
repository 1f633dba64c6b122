#include "sundial/query/gexp_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace sundial::query {
namespace {

std::string Err(const std::string& text) {
  GexpNode n;
  const Status s = ParseGexp(text, &n);
  return s.ok() ? "OK" : s.message();
}

TEST(GexpParser, MetricAndParameter) {
  GexpNode n;
  ASSERT_TRUE(ParseGexp("scale(sum:if.bytes_in{host=*,dc=lga},1024)", &n).ok());
  EXPECT_EQ(n.kind, GexpNode::Kind::kCall);
  EXPECT_EQ(n.function, GexpFunction::kScale);
  ASSERT_EQ(n.inputs.size(), 1u);
  EXPECT_EQ(n.inputs[0].kind, GexpNode::Kind::kMetric);
  EXPECT_EQ(n.inputs[0].name, "sum:if.bytes_in{host=*,dc=lga}");
  EXPECT_EQ(n.inputs[0].pos, 6u);
  ASSERT_EQ(n.params.size(), 1u);
  EXPECT_EQ(n.params[0], "1024");
}

TEST(GexpParser, OpenTsdbDoubleCommaAndNesting) {
  // OpenTSDB's TestExpressions: ",," separates parameters.
  GexpNode n;
  ASSERT_TRUE(ParseGexp(" alias( divideSeries(sum:a{host=*},,sum:b{host=*}) ,, '@host, ratio' ) ",
                        &n)
                  .ok());
  EXPECT_EQ(n.function, GexpFunction::kAlias);
  ASSERT_EQ(n.inputs.size(), 1u);
  const GexpNode& div = n.inputs[0];
  EXPECT_EQ(div.function, GexpFunction::kDivideSeries);
  ASSERT_EQ(div.inputs.size(), 2u);
  EXPECT_EQ(div.inputs[1].name, "sum:b{host=*}");
  ASSERT_EQ(n.params.size(), 1u);
  EXPECT_EQ(n.params[0], "'@host, ratio'");  // the quoted comma stays
}

TEST(GexpParser, FilterFunctionsStayInMetricQueries) {
  GexpNode n;
  ASSERT_TRUE(ParseGexp("absolute(sum:m{host=literal_or(a|b)}{dc=regexp(l(g)a)})", &n).ok());
  ASSERT_EQ(n.inputs.size(), 1u);
  EXPECT_EQ(n.inputs[0].kind, GexpNode::Kind::kMetric);
  EXPECT_EQ(n.inputs[0].name, "sum:m{host=literal_or(a|b)}{dc=regexp(l(g)a)}");
}

// OpenTSDB 2.4's short names run the same functions; the call keeps the
// name it was written with (errors name it).
TEST(GexpParser, OpenTsdbShortNames) {
  const std::pair<const char*, GexpFunction> cases[] = {
      {"sum", GexpFunction::kSumSeries},           {"difference", GexpFunction::kDiffSeries},
      {"multiply", GexpFunction::kMultiplySeries}, {"divide", GexpFunction::kDivideSeries},
      {"shift", GexpFunction::kTimeShift}};
  for (const auto& [name, fn] : cases) {
    GexpNode n;
    ASSERT_TRUE(ParseGexp(std::string(name) + "(sum:a,,sum:b)", &n).ok()) << name;
    EXPECT_EQ(n.function, fn) << name;
    EXPECT_EQ(n.name, name);
  }
  // "sum" as a function is told from "sum:" as an aggregator by the '('.
  GexpNode n;
  ASSERT_TRUE(ParseGexp("sum(sum:a{host=*},,sum:b)", &n).ok());
  ASSERT_EQ(n.inputs.size(), 2u);
  EXPECT_EQ(n.inputs[0].kind, GexpNode::Kind::kMetric);
  EXPECT_EQ(n.inputs[0].name, "sum:a{host=*}");
  EXPECT_NE(Err("Sum(sum:a,,sum:b)").find("function Sum has not been implemented"),
            std::string::npos);  // names are case-sensitive
}

TEST(GexpParser, EmptyArgumentList) {
  GexpNode n;
  ASSERT_TRUE(ParseGexp("absolute()", &n).ok());
  EXPECT_TRUE(n.inputs.empty());
  EXPECT_TRUE(n.params.empty());
}

TEST(GexpParser, ErrorsNamePositionAndFunction) {
  EXPECT_EQ(Err(""), "Expression may not be null or empty");
  EXPECT_EQ(Err("foo(sum:a)"),
            "Invalid expression [foo(sum:a)]: function foo has not been implemented at position 0");
  EXPECT_NE(Err("Scale(sum:a,2)").find("function Scale has not been implemented"),
            std::string::npos);
  EXPECT_EQ(Err("scale(sum:a,2"), "Invalid expression [scale(sum:a,2]: missing ')' at position 13");
  EXPECT_EQ(Err("scale(sum:a,,,2)"),
            "Invalid expression [scale(sum:a,,,2)]: empty argument at position 13");
  EXPECT_EQ(Err("scale(sum:a,2) x"),
            "Invalid expression [scale(sum:a,2) x]: unexpected text after ')' at position 15");
  EXPECT_EQ(Err("scale sum:a"),
            "Invalid expression [scale sum:a]: expected '(' after scale at position 6");
  EXPECT_EQ(Err("scale(sum:a},2)"),
            "Invalid expression [scale(sum:a},2)]: unbalanced '}' at position 11");
  EXPECT_EQ(Err("alias(sum:a,'x)"),
            "Invalid expression [alias(sum:a,'x)]: unterminated quote at position 15");
  EXPECT_EQ(Err("(sum:a)"), "Invalid expression [(sum:a)]: expected a function name at position 0");
}

TEST(GexpParser, Limits) {
  std::string deep = "sum:a";
  for (int i = 0; i <= kMaxGexpDepth; ++i) deep = "absolute(" + deep + ")";
  EXPECT_NE(Err(deep).find("nested more than 16 deep"), std::string::npos);
  std::string ok = "sum:a";
  for (int i = 0; i < kMaxGexpDepth; ++i) ok = "absolute(" + ok + ")";
  EXPECT_EQ(Err(ok), "OK");
  std::string wide = "sumSeries(sum:a";
  for (size_t i = 0; i < kMaxGexpArgs; ++i) wide += ",sum:a";
  EXPECT_NE(Err(wide + ")").find("more than 64 arguments"), std::string::npos);
  EXPECT_NE(Err("scale(" + std::string(kMaxGexpLength, 'a') + ")").find("longer than 4096"),
            std::string::npos);
}

TEST(GexpParser, FunctionNamesAreCaseSensitive) {
  GexpFunction f;
  EXPECT_TRUE(FindGexpFunction("highestCurrent", &f));
  EXPECT_EQ(f, GexpFunction::kHighestCurrent);
  EXPECT_FALSE(FindGexpFunction("highestcurrent", &f));
  EXPECT_FALSE(FindGexpFunction("", &f));
}

}  // namespace
}  // namespace sundial::query
