#include "sundial/query/tag_filter.h"

#include <gtest/gtest.h>

namespace sundial::query {
namespace {

TagFilter Make(const char* type, const char* filter) {
  TagFilter f;
  Status s = TagFilter::Create(type, "host", filter, false, &f);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return f;
}

TEST(TagFilter, Literals) {
  TagFilter f = Make("literal_or", "web01|web02");
  EXPECT_TRUE(f.Match("web01"));
  EXPECT_FALSE(f.Match("WEB01"));
  EXPECT_FALSE(f.Match("web03"));
  TagFilter i = Make("iliteral_or", "Web01");
  EXPECT_TRUE(i.Match("WEB01"));
  TagFilter n = Make("not_literal_or", "web01");
  EXPECT_FALSE(n.Match("web01"));
  EXPECT_TRUE(n.Match("web02"));
  TagFilter ni = Make("not_iliteral_or", "web01");
  EXPECT_FALSE(ni.Match("WEB01"));
}

TEST(TagFilter, WildcardLooseCheckLikeOpenTSDB) {
  EXPECT_TRUE(Make("wildcard", "*").Match("anything"));
  EXPECT_TRUE(Make("wildcard", "web*").Match("web01"));
  EXPECT_FALSE(Make("wildcard", "web*").Match("xweb01"));
  EXPECT_TRUE(Make("wildcard", "*quirm").Match("dquirm"));
  EXPECT_FALSE(Make("wildcard", "*quirm").Match("quirmd"));
  EXPECT_TRUE(Make("wildcard", "web*.net").Match("web01.net"));
  EXPECT_FALSE(Make("wildcard", "web*.net").Match("web01.com"));
  EXPECT_FALSE(Make("wildcard", "Web*").Match("web01"));
  EXPECT_TRUE(Make("iwildcard", "Web*").Match("WEB01"));
  // OpenTSDB's index bookkeeping: "a*b" on "ab" passes (components a, b).
  EXPECT_TRUE(Make("wildcard", "a*b").Match("ab"));
  TagFilter f;
  EXPECT_EQ(TagFilter::Create("wildcard", "host", "web", false, &f).message(),
            "Filter must contain an asterisk");
}

TEST(TagFilter, RegexpIsUnanchored) {
  EXPECT_TRUE(Make("regexp", "web[0-9]+").Match("xweb01y"));
  EXPECT_FALSE(Make("regexp", "^web[0-9]+$").Match("xweb01"));
  TagFilter f;
  EXPECT_FALSE(TagFilter::Create("regexp", "host", "web[", false, &f).ok());
}

TEST(TagFilter, Shorthand) {
  TagFilter f;
  ASSERT_TRUE(TagFilter::FromShorthand("host", "*", true, &f).ok());
  EXPECT_EQ(f.type_name(), "wildcard");
  EXPECT_TRUE(f.group_by());
  ASSERT_TRUE(TagFilter::FromShorthand("host", "Web*", true, &f).ok());
  EXPECT_EQ(f.type_name(), "wildcard");
  EXPECT_TRUE(f.Match("web01"));  // shorthand wildcard is case-insensitive
  ASSERT_TRUE(TagFilter::FromShorthand("host", "regexp(web.*)", false, &f).ok());
  EXPECT_EQ(f.type(), FilterType::kRegexp);
  ASSERT_TRUE(TagFilter::FromShorthand("host", "a|b", false, &f).ok());
  EXPECT_EQ(f.type(), FilterType::kLiteralOr);
  EXPECT_EQ(f.literals().size(), 2u);
  EXPECT_EQ(TagFilter::FromShorthand("host", "nope(x)", false, &f).message(),
            "Could not find a tag value filter of the type: nope");
}

// Every error message of Create and FromShorthand.
TEST(TagFilter, ErrorMessagesPinned) {
  TagFilter f;
  EXPECT_EQ(TagFilter::Create("Literal_or", "h", "x", false, &f).message(),
            "Could not find a tag value filter of the type: Literal_or");
  EXPECT_EQ(TagFilter::Create("literal_or", "", "x", false, &f).message(),
            "Tagk cannot be null or empty");
  EXPECT_EQ(TagFilter::Create("literal_or", "h", "", false, &f).message(),
            "Filter cannot be null or empty");
  EXPECT_EQ(TagFilter::Create("regexp", "h", std::string(1025, 'a'), false, &f).message(),
            "Regular expression is too long (limit 1024 bytes)");
  EXPECT_EQ(TagFilter::Create("regexp", "h", "web[", false, &f).message().rfind(
                "Invalid regular expression: web[: ", 0),
            0u);
  EXPECT_EQ(TagFilter::FromShorthand("", "x", false, &f).message(), "Tagk cannot be null or empty");
  EXPECT_EQ(TagFilter::FromShorthand("h", "", false, &f).message(),
            "Filter cannot be null or empty");
  EXPECT_EQ(TagFilter::FromShorthand("h", "Literal_OR(x", false, &f).message(),
            "Filter must end with a ')': Literal_OR(x");
  EXPECT_EQ(TagFilter::FromShorthand("h", "NOPE(x)", false, &f).message(),
            "Could not find a tag value filter of the type: nope");
  EXPECT_EQ(TagFilter::FromShorthand("h", "(x)", false, &f).message(),
            "Could not find a tag value filter of the type: ");
  EXPECT_EQ(TagFilter::FromShorthand("h", "wildcard()", false, &f).message(),
            "Filter cannot be null or empty");
  ASSERT_TRUE(TagFilter::FromShorthand("h", "Wildcard(a*b*c)", true, &f).ok());
  EXPECT_EQ(f.Key(), "h|wildcard|a*b*c");
  EXPECT_TRUE(f.Match("xaybzc"));
  EXPECT_FALSE(f.Match("xAybzc"));
  ASSERT_TRUE(TagFilter::FromShorthand("h", "***A*", false, &f).ok());
  EXPECT_EQ(f.Key(), "h|wildcardi|***A*");
  EXPECT_TRUE(f.Match("xay"));
  ASSERT_TRUE(TagFilter::FromShorthand("h", "not_iliteral_or(A||B)", false, &f).ok());
  EXPECT_EQ(f.literals(), (std::vector<std::string>{"a", "", "b"}));
}

TEST(TagFilter, ConfigListsSevenTypes) {
  const std::string j = FilterConfigJson();
  for (const char* t : {"\"literal_or\"", "\"iliteral_or\"", "\"not_literal_or\"",
                        "\"not_iliteral_or\"", "\"wildcard\"", "\"iwildcard\"", "\"regexp\""}) {
    EXPECT_NE(j.find(t), std::string::npos) << t;
  }
}

}  // namespace
}  // namespace sundial::query
