#include "sundial/query/json_format.h"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

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

// Short decimals take a fast path; it must print what the general
// shortest-round-trip path prints (std::to_chars in plain fixed form is the
// reference in this range, plus Java's ".0" for whole numbers).
TEST(JsonFormat, ShortDecimalsMatchShortestForm) {
  const char* env = std::getenv("SUNDIAL_SEED");
  uint64_t x = env ? std::strtoull(env, nullptr, 10) : 0x9E3779B97F4A7C15ull;
  std::printf("JsonFormat.ShortDecimalsMatchShortestForm seed %llu\n",
              static_cast<unsigned long long>(x));
  static constexpr double kPow10[] = {1, 10, 100, 1000, 10000, 100000};
  for (int i = 0; i < 200000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int d = static_cast<int>(x % 6);
    const double mag = kPow10[(x >> 8) % 6] * 100;
    double v = static_cast<double>((x >> 16) % static_cast<uint64_t>(mag)) / kPow10[d];
    if ((x >> 60) & 1) v = -v;
    if (i % 7 == 0) v = std::nextafter(v, 1e300);  // not short: the general path
    if (v == 0 || std::fabs(v) < 1e-3 || std::fabs(v) >= 1e7) continue;
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
    std::string want(buf, r.ptr);
    if (want.find('.') == std::string::npos) want += ".0";
    ASSERT_EQ(D(v), want) << v;
  }
}

// WriteInt writes what std::to_chars writes, for the edges of every
// 8-digit part and for random values of every length.
TEST(JsonFormat, WriteIntMatchesToChars) {
  const char* env = std::getenv("SUNDIAL_SEED");
  uint64_t x = env ? std::strtoull(env, nullptr, 10) : 0xD1B54A32D192ED03ull;
  std::printf("JsonFormat.WriteIntMatchesToChars seed %llu\n", static_cast<unsigned long long>(x));
  std::vector<int64_t> values = {0, std::numeric_limits<int64_t>::max(),
                                 std::numeric_limits<int64_t>::min()};
  for (int64_t p = 1;; p *= 10) {  // 10^0 .. 10^18
    for (int64_t v : {p - 1, p, p + 1}) {
      values.push_back(v);
      values.push_back(-v);
    }
    if (p > std::numeric_limits<int64_t>::max() / 10) break;
  }
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    values.push_back(static_cast<int64_t>(x >> (x % 64)));  // every length
    values.push_back(-static_cast<int64_t>(x >> (x % 63 + 1)));
  }
  for (int64_t v : values) {
    char want[32], got[kIntMax];
    const std::string w(want, std::to_chars(want, want + sizeof(want), v).ptr);
    ASSERT_EQ(std::string(got, WriteInt(v, got)), w) << v;
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
