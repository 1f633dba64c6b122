#include "sundial/query/tag_filter.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

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

// OpenTSDB's regexp is Java's Matcher.find(): unanchored, with Java's
// common syntax. RE2 agrees on these.
TEST(TagFilter, RegexpJavaCommonSyntax) {
  EXPECT_TRUE(Make("regexp", "^web\\d{2}\\.example\\.com$").Match("web01.example.com"));
  EXPECT_FALSE(Make("regexp", "^web\\d{2}$").Match("web1"));
  EXPECT_TRUE(Make("regexp", "(?i)WEB").Match("xweb"));
  EXPECT_TRUE(Make("regexp", "a|b").Match("zzb"));
  EXPECT_TRUE(Make("regexp", "[^a-c]").Match("abcd"));
  EXPECT_FALSE(Make("regexp", "[^a-c]").Match("abc"));
  EXPECT_TRUE(Make("regexp", "\\w+\\s\\S").Match("ab c"));
  EXPECT_TRUE(Make("regexp", "(?:ab)+?c").Match("ababc"));
  EXPECT_TRUE(Make("regexp", ".*").Match(""));
  // '.' does not match a line break, as in Java.
  EXPECT_FALSE(Make("regexp", "a.b").Match("a\nb"));
}

// What RE2 lacks of Java's syntax is refused up front, not mis-matched.
TEST(TagFilter, RegexpUnsupportedJavaConstructsAreErrors) {
  TagFilter f;
  for (const char* p : {"(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "a++", "\\p{Alpha}"}) {
    const Status s = TagFilter::Create("regexp", "h", p, false, &f);
    EXPECT_TRUE(s.IsInvalidArgument()) << p;
    EXPECT_EQ(s.message().rfind("Invalid regular expression: ", 0), 0u) << s.message();
  }
}

// (a+)+$ against 30 'a' and a 'b' takes std::regex (and Java) about 2^30
// steps; RE2 is linear. The bound is loose so a loaded machine passes.
TEST(TagFilter, RegexpCatastrophicPatternIsLinear) {
  const TagFilter f = Make("regexp", "(a+)+$");
  const std::string value = std::string(30, 'a') + "b";
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(f.Match(value));  // no run of a's ends the value
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(ms, 2000);
  const TagFilter g = Make("regexp", "^(a+)+$");
  EXPECT_TRUE(g.Match(std::string(30, 'a')));
  EXPECT_TRUE(f.Match(value + "aa"));
}

// A 1 MB tag value: std::regex recursed once per character and overflowed
// the stack; RE2 runs in constant stack.
TEST(TagFilter, RegexpOnMegabyteValue) {
  const std::string value(1 << 20, 'x');
  EXPECT_TRUE(Make("regexp", "(x|y)*z?$").Match(value));
  EXPECT_FALSE(Make("regexp", "^(x|y)*z$").Match(value));
  EXPECT_TRUE(Make("regexp", "^.*x$").Match(value));
}

// A pattern whose compiled form would need more than kRegexMaxMem is
// refused (nested counted repetition explodes the program).
TEST(TagFilter, RegexpOverMemoryBudgetIsRefused) {
  TagFilter f;
  const Status s = TagFilter::Create("regexp", "h", "((((a{100}){100}){100}){100})", false, &f);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
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
  EXPECT_EQ(TagFilter::Create("regexp", "h", std::string(kMaxRegexLength + 1, 'a'), false, &f)
                .message(),
            "Regular expression is too long: 65537 bytes, the limit is 65536");
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
