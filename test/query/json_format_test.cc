#include "sundial/query/json_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace sundial::query {
namespace {

std::string D(double v) {
  std::string s;
  AppendJavaDouble(v, &s);
  return s;
}

TEST(JsonFormat, JavaDoubleLayout) {
  EXPECT_EQ(D(1.5), "1.5");
  EXPECT_EQ(D(100.0), "100.0");
  EXPECT_EQ(D(0.025), "0.025");
  EXPECT_EQ(D(0.001), "0.001");
  EXPECT_EQ(D(1e-4), "1.0E-4");
  EXPECT_EQ(D(9999999.0), "9999999.0");
  EXPECT_EQ(D(1e7), "1.0E7");
  EXPECT_EQ(D(9.223372036854776E17), "9.223372036854776E17");
  EXPECT_EQ(D(-2.5), "-2.5");
  EXPECT_EQ(D(0.0), "0.0");
  EXPECT_EQ(D(-0.0), "-0.0");
  EXPECT_EQ(D(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(D(123456.789), "123456.789");
  EXPECT_EQ(D(1.7976931348623157E308), "1.7976931348623157E308");
  EXPECT_EQ(D(-1.25e-10), "-1.25E-10");
}

TEST(JsonFormat, NonFiniteAreQuotedStrings) {
  EXPECT_EQ(D(std::nan("")), "\"NaN\"");
  EXPECT_EQ(D(std::numeric_limits<double>::infinity()), "\"Infinity\"");
  EXPECT_EQ(JavaDoubleToString(std::nan("")), "NaN");
  EXPECT_EQ(JavaDoubleToString(42.0), "42.0");
}

TEST(JsonFormat, RoundTripsRandomDoubles) {
  uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    double d;
    std::memcpy(&d, &x, sizeof(d));
    if (!std::isfinite(d)) continue;
    std::string s = JavaDoubleToString(d);
    EXPECT_EQ(std::strtod(s.c_str(), nullptr), d) << s;
  }
}

TEST(JsonFormat, Strings) {
  std::string s;
  AppendJsonString("a\"b\\c\n\x01", &s);
  EXPECT_EQ(s, "\"a\\\"b\\\\c\\u000A\\u0001\"");
  s.clear();
  AppendInt(-9223372036854775807LL - 1, &s);
  EXPECT_EQ(s, "-9223372036854775808");
}

}  // namespace
}  // namespace sundial::query
