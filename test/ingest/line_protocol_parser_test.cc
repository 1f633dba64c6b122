#include "sundial/ingest/line_protocol_parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace sundial::ingest {
namespace {

// The parse error of line, or "" if it parsed.
std::string ErrorOf(std::string_view line) {
  LineProtocolParser p;
  const char* error = nullptr;
  return p.Parse(line, &error) ? "" : error;
}

TEST(LineProtocolParser, MeasurementTagsFieldsTimestamp) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse("cpu,host=a,region=eu usage=1.5,n=3i 1700000000000000000", &error));
  EXPECT_EQ(p.measurement(), "cpu");
  EXPECT_EQ(p.series(), "cpu,host=a,region=eu");
  ASSERT_EQ(p.fields().size(), 2u);
  EXPECT_EQ(p.fields()[0].key, "usage");
  EXPECT_EQ(p.fields()[0].type, LineFieldType::kFloat);
  EXPECT_DOUBLE_EQ(p.fields()[0].value.float_value(), 1.5);
  EXPECT_EQ(p.fields()[1].type, LineFieldType::kInteger);
  EXPECT_EQ(p.fields()[1].value.int_value(), 3);
  ASSERT_TRUE(p.has_timestamp());
  EXPECT_EQ(p.timestamp(), 1700000000000000000);
  std::string m;
  std::vector<storage::TagRef> tags;
  ASSERT_TRUE(p.DecodeSeries(&m, &tags, &error));
  EXPECT_EQ(m, "cpu");
  ASSERT_EQ(tags.size(), 2u);
  EXPECT_EQ(tags[0].key, "host");
  EXPECT_EQ(tags[0].value, "a");
  EXPECT_EQ(tags[1].key, "region");
  EXPECT_EQ(tags[1].value, "eu");
}

TEST(LineProtocolParser, NoTagsNoTimestamp) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse("  mem free=10", &error));
  EXPECT_EQ(p.measurement(), "mem");
  EXPECT_EQ(p.series(), "mem");
  EXPECT_FALSE(p.has_timestamp());
  ASSERT_TRUE(p.Parse("mem free=10 \r", &error));  // trailing space and CR
  EXPECT_FALSE(p.has_timestamp());
  ASSERT_TRUE(p.Parse("mem free=10 -5", &error));
  EXPECT_EQ(p.timestamp(), -5);
}

TEST(LineProtocolParser, EscapesInMeasurementTagsAndFieldKeys) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse(R"(my\ meas\,ure,ta\ g\=k=va\,l\=u\ e fi\ e\,l\=d=1 10)", &error)) << error;
  std::string m;
  std::vector<storage::TagRef> tags;
  ASSERT_TRUE(p.DecodeSeries(&m, &tags, &error));
  EXPECT_EQ(m, "my meas,ure");
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0].key, "ta g=k");
  EXPECT_EQ(tags[0].value, "va,l=u e");
  ASSERT_EQ(p.fields().size(), 1u);
  std::string key;
  LineProtocolParser::UnescapeKey(p.fields()[0].key, &key);
  EXPECT_EQ(key, "fi e,l=d");
  EXPECT_EQ(p.timestamp(), 10);
  // In a measurement "\=" is not an escape: the backslash stays.
  ASSERT_TRUE(p.Parse(R"(a\=b f=1)", &error));
  ASSERT_TRUE(p.DecodeSeries(&m, &tags, &error));
  EXPECT_EQ(m, R"(a\=b)");
  // Other backslashes are literal.
  ASSERT_TRUE(p.Parse(R"(c:\dir,path=c:\tmp f=1)", &error));
  ASSERT_TRUE(p.DecodeSeries(&m, &tags, &error));
  EXPECT_EQ(m, R"(c:\dir)");
  EXPECT_EQ(tags[0].value, R"(c:\tmp)");
}

TEST(LineProtocolParser, FieldTypes) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse("m a=1,b=-2.5,c=1e3,d=.5,e=7i,f=-7i,g=8u,h=18446744073709551615u,"
                      "i=9223372036854775807i,j=-9223372036854775808i,k=1.5E-2",
                      &error))
      << error;
  const auto& f = p.fields();
  ASSERT_EQ(f.size(), 11u);
  EXPECT_EQ(f[0].type, LineFieldType::kFloat);  // no suffix: a float
  EXPECT_FALSE(f[0].value.is_int());
  EXPECT_EQ(f[0].value.float_value(), 1.0);
  EXPECT_EQ(f[1].value.float_value(), -2.5);
  EXPECT_EQ(f[2].value.float_value(), 1000.0);
  EXPECT_EQ(f[3].value.float_value(), 0.5);
  EXPECT_EQ(f[4].value.int_value(), 7);
  EXPECT_EQ(f[5].value.int_value(), -7);
  EXPECT_EQ(f[6].type, LineFieldType::kUnsigned);
  EXPECT_EQ(f[6].value.int_value(), 8);
  EXPECT_FALSE(f[7].value.is_int());  // above INT64_MAX: the nearest float
  EXPECT_EQ(f[7].value.float_value(), 18446744073709551615.0);
  EXPECT_EQ(f[8].value.int_value(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(f[9].value.int_value(), std::numeric_limits<int64_t>::min());
  EXPECT_DOUBLE_EQ(f[10].value.float_value(), 0.015);
}

TEST(LineProtocolParser, Booleans) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse("m a=t,b=T,c=true,d=True,e=TRUE,f=f,g=F,h=false,i=False,j=FALSE", &error));
  const auto& f = p.fields();
  ASSERT_EQ(f.size(), 10u);
  for (size_t i = 0; i < f.size(); ++i) {
    EXPECT_EQ(f[i].type, LineFieldType::kBoolean);
    EXPECT_EQ(f[i].value.int_value(), i < 5 ? 1 : 0) << i;
  }
  EXPECT_EQ(ErrorOf("m a=tRUE"), "invalid boolean");
  EXPECT_EQ(ErrorOf("m a=yes"), "invalid boolean");
  EXPECT_EQ(ErrorOf("m a=fals"), "invalid boolean");
}

TEST(LineProtocolParser, StringFields) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse(R"(m s="a \"quoted\" \\ str, with = and space",n=1 5)", &error)) << error;
  ASSERT_EQ(p.fields().size(), 2u);
  EXPECT_EQ(p.fields()[0].type, LineFieldType::kString);
  EXPECT_EQ(p.fields()[0].text, R"(a \"quoted\" \\ str, with = and space)");
  EXPECT_EQ(p.fields()[1].value.float_value(), 1.0);
  EXPECT_EQ(p.timestamp(), 5);
  ASSERT_TRUE(p.Parse(R"(m s="")", &error));
  EXPECT_EQ(p.fields()[0].text, "");
  EXPECT_EQ(ErrorOf(R"(m s="open)"), "unbalanced quotes");
  EXPECT_EQ(ErrorOf(R"(m s="a"x)"), "invalid field format");
}

TEST(LineProtocolParser, Errors) {
  EXPECT_EQ(ErrorOf(",a=b f=1"), "missing measurement");
  EXPECT_EQ(ErrorOf("   "), "missing measurement");
  EXPECT_EQ(ErrorOf("cpu"), "missing fields");
  EXPECT_EQ(ErrorOf("cpu "), "missing fields");
  EXPECT_EQ(ErrorOf("cpu,host=a"), "missing fields");
  EXPECT_EQ(ErrorOf("cpu, f=1"), "missing tag key");
  EXPECT_EQ(ErrorOf("cpu,=a f=1"), "missing tag key");
  EXPECT_EQ(ErrorOf("cpu,host f=1"), "missing tag value");
  EXPECT_EQ(ErrorOf("cpu,host= f=1"), "missing tag value");
  EXPECT_EQ(ErrorOf("cpu,host=a=b f=1"), "invalid tag format");
  EXPECT_EQ(ErrorOf("cpu =1"), "missing field key");
  EXPECT_EQ(ErrorOf("cpu a=1,=2"), "missing field key");
  EXPECT_EQ(ErrorOf("cpu a="), "missing field value");
  EXPECT_EQ(ErrorOf("cpu a=,b=1"), "missing field value");
  EXPECT_EQ(ErrorOf("cpu value"), "invalid field format");
  EXPECT_EQ(ErrorOf("cpu a=1,b"), "invalid field format");
  EXPECT_EQ(ErrorOf("cpu a=1,"), "invalid field format");
  EXPECT_EQ(ErrorOf("cpu a=1x"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=1.2.3"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=NaN"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=-"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=1.5i"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=-1u"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=9i10"), "invalid number");
  EXPECT_EQ(ErrorOf("cpu a=9223372036854775808i"), "integer out of range");
  EXPECT_EQ(ErrorOf("cpu a=18446744073709551616u"), "unsigned out of range");
  EXPECT_EQ(ErrorOf("cpu a=1e"), "invalid float");
  EXPECT_EQ(ErrorOf("cpu a=1e999"), "invalid float");
  EXPECT_EQ(ErrorOf("cpu a=1 12x"), "bad timestamp");
  EXPECT_EQ(ErrorOf("cpu a=1 1.5"), "bad timestamp");
  EXPECT_EQ(ErrorOf("cpu a=1 99999999999999999999"), "bad timestamp");
  EXPECT_EQ(ErrorOf("cpu a=1 1 2"), "point is invalid");
  EXPECT_EQ(ErrorOf("cpu a=1 -"), "bad timestamp");
  EXPECT_EQ(ErrorOf(std::string("m") + std::string(70000, 'x') + " a=1"),
            "max key length exceeded");
}

TEST(LineProtocolParser, DuplicateTagsOnDecode) {
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse("cpu,a=1,b=2,a=3 f=1", &error));
  std::string m;
  std::vector<storage::TagRef> tags;
  EXPECT_FALSE(p.DecodeSeries(&m, &tags, &error));
  EXPECT_STREQ(error, "duplicate tags");
}

TEST(LineProtocolParser, BlankCommentAndLooksLike) {
  EXPECT_TRUE(IsBlankOrComment(""));
  EXPECT_TRUE(IsBlankOrComment("  \t"));
  EXPECT_TRUE(IsBlankOrComment("\r"));
  EXPECT_TRUE(IsBlankOrComment("# a comment"));
  EXPECT_TRUE(IsBlankOrComment("   # indented"));
  EXPECT_FALSE(IsBlankOrComment("cpu a=1"));
  EXPECT_TRUE(LooksLikeLineProtocol("cpu,host=a value=1"));
  EXPECT_TRUE(LooksLikeLineProtocol("cpu x="));
  EXPECT_TRUE(LooksLikeLineProtocol(R"(my\ cpu value=1)"));
  EXPECT_FALSE(LooksLikeLineProtocol("foo bar"));
  EXPECT_FALSE(LooksLikeLineProtocol("Put x 1 1 a=b"));
  EXPECT_FALSE(LooksLikeLineProtocol("cpu,host=a"));
}

TEST(LineProtocolParser, FindLineEndKeepsNewlinesInStrings) {
  const std::string body = "a f=1\nb s=\"x\ny\",n=2 5\nc f=3";
  size_t end = FindLineEnd(body, 0);
  EXPECT_EQ(body.substr(0, end), "a f=1");
  const size_t second = end + 1;
  end = FindLineEnd(body, second);
  EXPECT_EQ(body.substr(second, end - second), "b s=\"x\ny\",n=2 5");
  EXPECT_EQ(FindLineEnd(body, end + 1), body.size());
  LineProtocolParser p;
  const char* error = nullptr;
  ASSERT_TRUE(p.Parse(std::string_view(body).substr(second, end - second), &error)) << error;
  EXPECT_EQ(p.fields()[0].text, "x\ny");
}

TEST(Precision, ParseAndConvert) {
  Precision p;
  ASSERT_TRUE(ParsePrecision("", &p));
  EXPECT_EQ(p, Precision::kNanosecond);
  ASSERT_TRUE(ParsePrecision("ns", &p));
  EXPECT_EQ(p, Precision::kNanosecond);
  ASSERT_TRUE(ParsePrecision("n", &p));
  ASSERT_TRUE(ParsePrecision("u", &p));
  EXPECT_EQ(p, Precision::kMicrosecond);
  ASSERT_TRUE(ParsePrecision("us", &p));
  ASSERT_TRUE(ParsePrecision("ms", &p));
  EXPECT_EQ(p, Precision::kMillisecond);
  ASSERT_TRUE(ParsePrecision("s", &p));
  ASSERT_TRUE(ParsePrecision("m", &p));
  ASSERT_TRUE(ParsePrecision("h", &p));
  EXPECT_EQ(p, Precision::kHour);
  EXPECT_FALSE(ParsePrecision("x", &p));
  EXPECT_FALSE(ParsePrecision("S", &p));

  int64_t ms = 0;
  ASSERT_TRUE(PrecisionToMs(1700000000123999999, Precision::kNanosecond, &ms));
  EXPECT_EQ(ms, 1700000000123);  // truncated
  ASSERT_TRUE(PrecisionToMs(1700000000123999, Precision::kMicrosecond, &ms));
  EXPECT_EQ(ms, 1700000000123);
  ASSERT_TRUE(PrecisionToMs(1700000000123, Precision::kMillisecond, &ms));
  EXPECT_EQ(ms, 1700000000123);
  ASSERT_TRUE(PrecisionToMs(1700000000, Precision::kSecond, &ms));
  EXPECT_EQ(ms, 1700000000000);
  ASSERT_TRUE(PrecisionToMs(2, Precision::kMinute, &ms));
  EXPECT_EQ(ms, 120000);
  ASSERT_TRUE(PrecisionToMs(2, Precision::kHour, &ms));
  EXPECT_EQ(ms, 7200000);
  ASSERT_TRUE(PrecisionToMs(-1, Precision::kNanosecond, &ms));
  EXPECT_EQ(ms, -1);  // toward negative infinity
  EXPECT_FALSE(PrecisionToMs(std::numeric_limits<int64_t>::max() / 1000000000 + 1, Precision::kSecond, &ms));
  EXPECT_FALSE(PrecisionToMs(std::numeric_limits<int64_t>::max(), Precision::kHour, &ms));
}

}  // namespace
}  // namespace sundial::ingest
