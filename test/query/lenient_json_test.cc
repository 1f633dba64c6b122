#include "query/lenient_json_impl.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "sundial/query/query_spec.h"

namespace sundial::query {
namespace {

LenientJson J(const char* text) { return LenientJson::parse(text, nullptr, false); }

TEST(LenientJson, StringCoercesScalars) {
  std::string s;
  ASSERT_TRUE(LenientString(J("\"abc\""), DoubleText::kFixed, &s));
  EXPECT_EQ(s, "abc");
  ASSERT_TRUE(LenientString(J("18446744073709551615"), DoubleText::kFixed, &s));
  EXPECT_EQ(s, "18446744073709551615");
  ASSERT_TRUE(LenientString(J("-42"), DoubleText::kJava, &s));
  EXPECT_EQ(s, "-42");
  ASSERT_TRUE(LenientString(J("true"), DoubleText::kJava, &s));
  EXPECT_EQ(s, "true");
  ASSERT_TRUE(LenientString(J("1.5"), DoubleText::kFixed, &s));
  EXPECT_EQ(s, "1.5");
  ASSERT_TRUE(LenientString(J("1e21"), DoubleText::kFixed, &s));
  EXPECT_EQ(s, "1000000000000000000000");
  ASSERT_TRUE(LenientString(J("1.0"), DoubleText::kJava, &s));
  EXPECT_EQ(s, "1.0");
  s = "kept";
  EXPECT_FALSE(LenientString(J("null"), DoubleText::kJava, &s));
  EXPECT_FALSE(LenientString(J("[1]"), DoubleText::kJava, &s));
  EXPECT_FALSE(LenientString(J("{}"), DoubleText::kFixed, &s));
  EXPECT_EQ(s, "kept");
}

TEST(LenientJson, BoolAcceptsJacksonSpellingsAndKeepsValueOnNull) {
  bool b = false;
  ASSERT_TRUE(LenientBool(J("\"TRUE\""), &b));
  EXPECT_TRUE(b);
  ASSERT_TRUE(LenientBool(J("\"\""), &b));
  EXPECT_FALSE(b);
  ASSERT_TRUE(LenientBool(J("2"), &b));
  EXPECT_TRUE(b);
  ASSERT_TRUE(LenientBool(J("null"), &b));
  EXPECT_TRUE(b);
  EXPECT_FALSE(LenientBool(J("\"yes\""), &b));
  EXPECT_FALSE(LenientBool(J("[]"), &b));
  EXPECT_TRUE(b);
}

TEST(LenientJson, Int64TruncatesAndClampsFloats) {
  int64_t v = 0;
  ASSERT_TRUE(LenientInt64(J("-7"), &v));
  EXPECT_EQ(v, -7);
  ASSERT_TRUE(LenientInt64(J("2.9"), &v));
  EXPECT_EQ(v, 2);
  ASSERT_TRUE(LenientInt64(J("1e300"), &v));
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(LenientInt64(J("-1e300"), &v));
  EXPECT_EQ(v, INT64_MIN);
  ASSERT_TRUE(LenientInt64(J("18446744073709551615"), &v));  // unsigned above INT64_MAX
  EXPECT_EQ(v, INT64_MAX);
  ASSERT_TRUE(LenientInt64(J("42"), &v));
  EXPECT_EQ(v, 42);
  ASSERT_TRUE(LenientInt64(J("\"123\""), &v));
  EXPECT_EQ(v, 123);
  EXPECT_FALSE(LenientInt64(J("\"12x\""), &v));
  EXPECT_FALSE(LenientInt64(J("null"), &v));
  EXPECT_FALSE(LenientInt64(J("true"), &v));
}

TEST(LenientJson, DoubleReadsNumbersStringsAndNaN) {
  double d = 1;
  ASSERT_TRUE(LenientDouble(J("\"2.5\""), &d));
  EXPECT_EQ(d, 2.5);
  ASSERT_TRUE(LenientDouble(J("\"NaN\""), &d));
  EXPECT_TRUE(std::isnan(d));
  d = 3;
  ASSERT_TRUE(LenientDouble(J("null"), &d));
  EXPECT_EQ(d, 3);
  EXPECT_FALSE(LenientDouble(J("\"2.5x\""), &d));
  EXPECT_FALSE(LenientDouble(J("false"), &d));
}

TEST(LenientJson, BlankBodyIsMissingContent) {
  EXPECT_TRUE(CheckBodyNotBlank(" {}").ok());
  for (const char* blank : {"", " \t\r\n"}) {
    const Status s = CheckBodyNotBlank(blank);
    ASSERT_TRUE(s.IsInvalidArgument());
    std::string message, details;
    SplitErrorDetails(s.message(), &message, &details);
    EXPECT_EQ(message, "Missing message content");
    EXPECT_EQ(details, "Supply valid JSON formatted data in the body of your request");
  }
}

TEST(LenientJson, ErrorsCarryOpenTsdbMessage) {
  const Status s = FieldError("rate");
  EXPECT_TRUE(s.IsInvalidArgument());
  std::string message, details;
  SplitErrorDetails(s.message(), &message, &details);
  EXPECT_EQ(message, "Unable to parse the given JSON");
  EXPECT_EQ(details, "Cannot deserialize field 'rate'");
}

}  // namespace
}  // namespace sundial::query
