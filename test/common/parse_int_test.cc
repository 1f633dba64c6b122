#include "sundial/common/parse_int.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace sundial {
namespace {

TEST(ParseInt, Int64Edges) {
  int64_t v = 0;
  EXPECT_TRUE(ParseInt64("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(ParseInt64("+42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(ParseInt64("-42", &v));
  EXPECT_EQ(v, -42);
  EXPECT_TRUE(ParseInt64("9223372036854775807", &v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_TRUE(ParseInt64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(ParseInt64("000000000000000000000000000001", &v));  // leading zeros
  EXPECT_EQ(v, 1);
  v = 7;
  for (const char* bad : {"", "+", "-", "9223372036854775808", "-9223372036854775809",
                          "99999999999999999999", "1e3", " 1", "1 ", "0x10", "1.0", "--1",
                          "+-1", "12a45678901"}) {
    EXPECT_FALSE(ParseInt64(bad, &v)) << bad;
  }
  EXPECT_EQ(v, 7);  // untouched on failure
}

TEST(ParseInt, Uint64Edges) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseUint64("18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(ParseUint64("18446744073709551616", &v));
  EXPECT_FALSE(ParseUint64("+1", &v));
  EXPECT_FALSE(ParseUint64("-1", &v));
  EXPECT_FALSE(ParseUint64("", &v));
}

TEST(ParseInt, LeadingDigits) {
  uint64_t v = 0;
  EXPECT_EQ(ParseLeadingDigits("64k", UINT64_MAX, &v), 2u);
  EXPECT_EQ(v, 64u);
  EXPECT_EQ(ParseLeadingDigits("k", UINT64_MAX, &v), 0u);
  EXPECT_EQ(ParseLeadingDigits("255", 255, &v), 3u);
  EXPECT_EQ(ParseLeadingDigits("256", 255, &v), 0u);
  EXPECT_EQ(ParseLeadingDigits("18446744073709551616ms", UINT64_MAX, &v), 0u);
}

TEST(ParseInt, ShortDigits) {
  uint64_t v = 0;
  EXPECT_TRUE(ParseShortDigits("1700000000", &v));
  EXPECT_EQ(v, 1700000000u);
  EXPECT_TRUE(ParseShortDigits("999999999999999999", &v));
  EXPECT_FALSE(ParseShortDigits("1000000000000000000", &v));  // 19 digits: not short
  EXPECT_FALSE(ParseShortDigits("1700000:00", &v));
  EXPECT_FALSE(ParseShortDigits("", &v));
}

// ParseInt64 agrees with strtoll (with errno) on random decimal strings.
TEST(ParseInt, RandomAgainstStrtoll) {
  const char* env = std::getenv("SUNDIAL_TEST_SEED");
  const uint32_t seed = env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10))
                                       : std::random_device{}();
  std::printf("seed %u (set SUNDIAL_TEST_SEED to repeat)\n", seed);
  std::mt19937 rng(seed);
  static constexpr char kChars[] = "0123456789999000-+x";
  for (int iter = 0; iter < 100000; ++iter) {
    std::string s(1 + rng() % 22, '0');
    for (size_t i = 0; i < s.size(); ++i) {
      s[i] = i == 0 || rng() % 16 == 0 ? kChars[rng() % (sizeof(kChars) - 1)]
                                       : static_cast<char>('0' + rng() % 10);
    }
    bool ref_ok = s.find_first_not_of("0123456789", s[0] == '-' || s[0] == '+' ? 1 : 0) ==
                      std::string::npos &&
                  s.size() > (s[0] == '-' || s[0] == '+' ? 1u : 0u);
    long long ref = 0;
    if (ref_ok) {
      errno = 0;
      ref = std::strtoll(s.c_str(), nullptr, 10);
      ref_ok = errno == 0;
    }
    int64_t got = 0;
    ASSERT_EQ(ParseInt64(s, &got), ref_ok) << s << " seed " << seed;
    if (ref_ok) {
      ASSERT_EQ(got, ref) << s << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace sundial
