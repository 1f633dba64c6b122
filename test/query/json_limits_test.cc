#include "sundial/query/json_limits.h"

#include <gtest/gtest.h>

#include <string>

#include "sundial/query/query_spec.h"

namespace sundial::query {
namespace {

std::string Nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonLimits, DepthCountsArraysAndObjects) {
  EXPECT_TRUE(CheckJsonBounds(Nested(4), 1 << 20, 4).ok());
  EXPECT_TRUE(CheckJsonBounds(Nested(5), 1 << 20, 4).IsInvalidArgument());
  EXPECT_TRUE(CheckJsonBounds(R"({"a":{"b":[{}]}})", 1 << 20, 4).ok());
  EXPECT_TRUE(CheckJsonBounds(R"({"a":{"b":[{"c":[]}]}})", 1 << 20, 4).IsInvalidArgument());
  // Siblings do not add up.
  EXPECT_TRUE(CheckJsonBounds("[[],[],[[]],[]]", 1 << 20, 3).ok());
}

TEST(JsonLimits, BracketsInStringsDoNotCount) {
  EXPECT_TRUE(CheckJsonBounds(R"({"a":"[[[[[[{{{{{"})", 1 << 20, 1).ok());
  // An escaped quote does not end the string.
  EXPECT_TRUE(CheckJsonBounds(R"({"a":"\"[[[[["})", 1 << 20, 1).ok());
  EXPECT_TRUE(CheckJsonBounds(R"({"a":"\\",[[[["x"]]]]})", 1 << 20, 2).IsInvalidArgument());
}

TEST(JsonLimits, SizeAndMessage) {
  const Status s = CheckJsonBounds(std::string(2000, ' '), 1000, 4);
  ASSERT_TRUE(s.IsInvalidArgument());
  std::string message, details;
  SplitErrorDetails(s.message(), &message, &details);
  EXPECT_EQ(message, "Unable to parse the given JSON");
  EXPECT_EQ(details, "The JSON body is 2000 bytes, more than the limit of 1000");
  SplitErrorDetails(CheckJsonBounds(Nested(100)).message(), &message, &details);
  EXPECT_EQ(details, "The JSON body nests arrays and objects deeper than the limit of 32");
}

// A query body of a million '[' (what a few KB of gzip inflate to) is
// refused before nlohmann::json allocates a node for each.
TEST(JsonLimits, ParseQueryJsonRefusesDeepBodies) {
  QuerySpec spec;
  const Status s = ParseQueryJson(std::string(1 << 20, '['), 0, &spec);
  EXPECT_TRUE(s.IsInvalidArgument());
  const std::string deep = R"({"start":1,"queries":[{"aggregator":"sum","metric":"m","x":)" +
                           Nested(40) + "}]}";
  EXPECT_TRUE(ParseQueryJson(deep, 0, &spec).IsInvalidArgument());
}

}  // namespace
}  // namespace sundial::query
