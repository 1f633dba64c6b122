#include "ingest/fast_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace sundial::ingest {
namespace {

TEST(FastNumber, DigitsOnly) {
  int64_t v = -1;
  EXPECT_TRUE(FastParseDigits("1700000000", &v));
  EXPECT_EQ(v, 1700000000);
  EXPECT_TRUE(FastParseDigits("999999999999999999", &v));  // 18 digits
  EXPECT_EQ(v, 999999999999999999LL);
  EXPECT_TRUE(FastParseDigits("0", &v));
  EXPECT_EQ(v, 0);
  for (const char* s : {"", "-1", "+1", "1.5", "12a", " 1", "1234567890123456789"}) {
    EXPECT_FALSE(FastParseDigits(s, &v)) << s;
  }
}

TEST(FastNumber, ValueForms) {
  ParsedValue p;
  ASSERT_TRUE(FastParseValue("42", &p));
  EXPECT_TRUE(p.value.is_int());
  EXPECT_EQ(p.value.int_value(), 42);
  ASSERT_TRUE(FastParseValue("-7", &p));
  EXPECT_EQ(p.value.int_value(), -7);
  ASSERT_TRUE(FastParseValue("12.34", &p));
  EXPECT_FALSE(p.value.is_int());
  EXPECT_EQ(p.value.float_value(), 12.34);
  EXPECT_FALSE(p.fits_float32);
  ASSERT_TRUE(FastParseValue("-.5", &p));
  EXPECT_EQ(p.value.float_value(), -0.5);
  EXPECT_TRUE(p.fits_float32);
  ASSERT_TRUE(FastParseValue("1.", &p));
  EXPECT_EQ(p.value.float_value(), 1.0);
  ASSERT_TRUE(FastParseValue("-0.0", &p));
  EXPECT_TRUE(std::signbit(p.value.float_value()));
  // Everything else is left to the full parser.
  for (const char* s : {"", "-", ".", "+1", "1e3", "1.2.3", "NaN", "1.5f", "1,5", " 1",
                        "1234567890123456.7", "1234567890123456789"}) {
    EXPECT_FALSE(FastParseValue(s, &p)) << s;
  }
}

// Random decimals of up to 16 digits: the fast path either declines or
// gives exactly what ParseValue gives.
TEST(FastNumber, AgreesWithTheFullParser) {
  const char* env = std::getenv("SUNDIAL_SEED");
  const unsigned seed = env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : 11u;
  std::printf("SUNDIAL_SEED=%u\n", seed);
  std::mt19937 rng(seed);
  int answered = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string s;
    if (rng() % 3 == 0) s += '-';
    const int digits = 1 + static_cast<int>(rng() % 16);
    const int point = static_cast<int>(rng() % (digits + 2)) - 1;  // -1: none
    for (int d = 0; d < digits; ++d) {
      if (d == point) s += '.';
      s += static_cast<char>('0' + rng() % 10);
    }
    if (point == digits) s += '.';
    ParsedValue fast, full;
    std::string error;
    if (!FastParseValue(s, &fast)) continue;
    ++answered;
    ASSERT_TRUE(ParseValue(s, &full, &error)) << s;
    ASSERT_TRUE(fast.value.BitEquals(full.value)) << s;
    ASSERT_EQ(fast.fits_float32, full.fits_float32) << s;
    int64_t a = 0, b = 0;
    if (FastParseDigits(s, &a)) {
      ASSERT_TRUE(ParseJavaLong(s, &b, &error)) << s;
      ASSERT_EQ(a, b) << s;
    }
  }
  EXPECT_GT(answered, 100000);
}

}  // namespace
}  // namespace sundial::ingest
