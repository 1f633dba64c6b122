#include "server/option_values.h"

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

TEST(OptionValues, Bytes) {
  uint64_t v = 0;
  ASSERT_TRUE(ParseBytes("512", 0, UINT64_MAX, &v).ok());
  EXPECT_EQ(v, 512u);
  ASSERT_TRUE(ParseBytes("64KiB", 0, UINT64_MAX, &v).ok());
  EXPECT_EQ(v, 65536u);
  ASSERT_TRUE(ParseBytes("64mb", 0, UINT64_MAX, &v).ok());
  EXPECT_EQ(v, 64u << 20);
  ASSERT_TRUE(ParseBytes("1G", 0, UINT64_MAX, &v).ok());
  EXPECT_EQ(v, 1u << 30);
  EXPECT_FALSE(ParseBytes("", 0, UINT64_MAX, &v).ok());
  EXPECT_FALSE(ParseBytes("12x", 0, UINT64_MAX, &v).ok());
  EXPECT_FALSE(ParseBytes("-1", 0, UINT64_MAX, &v).ok());
  EXPECT_FALSE(ParseBytes("99999999999999999999999", 0, UINT64_MAX, &v).ok());
  EXPECT_FALSE(ParseBytes("2KiB", 0, 1024, &v).ok());
}

TEST(OptionValues, Durations) {
  std::chrono::milliseconds d{0};
  ASSERT_TRUE(ParseDuration("0", &d).ok());
  EXPECT_EQ(d.count(), 0);
  ASSERT_TRUE(ParseDuration("250ms", &d).ok());
  EXPECT_EQ(d.count(), 250);
  ASSERT_TRUE(ParseDuration("30s", &d).ok());
  EXPECT_EQ(d.count(), 30000);
  ASSERT_TRUE(ParseDuration("1d", &d).ok());
  EXPECT_EQ(d.count(), 86400000);
  EXPECT_FALSE(ParseDuration("30", &d).ok());  // unit required
  EXPECT_FALSE(ParseDuration("1y", &d).ok());
  EXPECT_FALSE(ParseDuration("s", &d).ok());
}

TEST(OptionValues, BoolsAndInts) {
  bool b = false;
  ASSERT_TRUE(ParseBool("Yes", &b).ok());
  EXPECT_TRUE(b);
  ASSERT_TRUE(ParseBool("off", &b).ok());
  EXPECT_FALSE(b);
  EXPECT_FALSE(ParseBool("maybe", &b).ok());
  uint64_t v = 0;
  ASSERT_TRUE(ParseUint("42", 1, 100, &v).ok());
  EXPECT_EQ(v, 42u);
  EXPECT_FALSE(ParseUint("0", 1, 100, &v).ok());
  EXPECT_FALSE(ParseUint("4 2", 1, 100, &v).ok());
}

}  // namespace
}  // namespace sundial::server
