#include "ingest/fast_number.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "storage/test_util.h"

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

// Digit strings of every length with at most one non-digit byte anywhere:
// FastParseDigits (eight at a time) agrees with a plain digit loop.
TEST(FastNumber, DigitsAgreeWithALoop) {
  const unsigned seed = static_cast<unsigned>(storage::testing::TestSeed(7));
  std::mt19937 rng(seed);
  int parsed = 0;
  for (int i = 0; i < 200000; ++i) {
    std::string s;
    const size_t n = rng() % 21;
    for (size_t k = 0; k < n; ++k) s += static_cast<char>('0' + rng() % 10);
    if (n > 0 && rng() % 2 == 0) s[rng() % n] = static_cast<char>(rng() % 256);
    bool all_digits = !s.empty() && s.size() <= 18;
    uint64_t want = 0;
    for (char c : s) {
      all_digits = all_digits && c >= '0' && c <= '9';
      want = want * 10 + static_cast<uint64_t>(static_cast<unsigned char>(c) - '0');
    }
    int64_t got = -1;
    ASSERT_EQ(FastParseDigits(s, &got), all_digits) << s;
    if (all_digits) {
      ASSERT_EQ(static_cast<uint64_t>(got), want) << s;
      ++parsed;
    }
  }
  EXPECT_GT(parsed, 40000);
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
  const unsigned seed = static_cast<unsigned>(storage::testing::TestSeed(11));
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
