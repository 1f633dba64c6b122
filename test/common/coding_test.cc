#include "sundial/common/coding.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sundial {
namespace {

TEST(Coding, FixedIsLittleEndian) {
  std::string s;
  PutFixed32(&s, 0x04030201u);
  PutFixed64(&s, 0x0807060504030201ull);
  ASSERT_EQ(s.size(), 12u);
  EXPECT_EQ(s[0], 1);
  EXPECT_EQ(s[3], 4);
  EXPECT_EQ(s[4], 1);
  EXPECT_EQ(s[11], 8);
  std::string_view in(s);
  uint32_t a;
  uint64_t b;
  ASSERT_TRUE(GetFixed32(&in, &a));
  ASSERT_TRUE(GetFixed64(&in, &b));
  EXPECT_EQ(a, 0x04030201u);
  EXPECT_EQ(b, 0x0807060504030201ull);
  EXPECT_FALSE(GetFixed32(&in, &a));
}

TEST(Coding, VarintRoundTripsBoundaries) {
  const uint64_t values[] = {0, 1, 127, 128, 16383, 16384, UINT32_MAX,
                             1ull << 56, UINT64_MAX};
  std::string s;
  for (uint64_t v : values) PutVarint64(&s, v);
  std::string_view in(s);
  for (uint64_t v : values) {
    uint64_t got;
    ASSERT_TRUE(GetVarint64(&in, &got));
    EXPECT_EQ(got, v);
  }
  EXPECT_TRUE(in.empty());
}

TEST(Coding, VarintRejectsTruncatedAndOverlong) {
  std::string s;
  PutVarint64(&s, UINT64_MAX);
  std::string_view truncated(s.data(), s.size() - 1);
  uint64_t v;
  EXPECT_FALSE(GetVarint64(&truncated, &v));
  std::string overlong(11, '\xff');
  std::string_view in(overlong);
  EXPECT_FALSE(GetVarint64(&in, &v));
  std::string big;
  PutVarint64(&big, 1ull << 32);
  std::string_view in32(big);
  uint32_t v32;
  EXPECT_FALSE(GetVarint32(&in32, &v32));
}

TEST(Coding, LengthPrefixedRejectsShortBody) {
  std::string s;
  PutLengthPrefixed(&s, "hello");
  std::string_view ok(s);
  std::string_view out;
  ASSERT_TRUE(GetLengthPrefixed(&ok, &out));
  EXPECT_EQ(out, "hello");
  std::string_view shortened(s.data(), s.size() - 1);
  EXPECT_FALSE(GetLengthPrefixed(&shortened, &out));
}

TEST(Coding, ZigZagRoundTrips) {
  const int64_t values[] = {0, -1, 1, -2, std::numeric_limits<int64_t>::min(),
                            std::numeric_limits<int64_t>::max()};
  for (int64_t v : values) EXPECT_EQ(ZigZagDecode64(ZigZagEncode64(v)), v);
  EXPECT_EQ(ZigZagEncode64(-1), 1u);
  EXPECT_EQ(ZigZagEncode64(1), 2u);
}

TEST(Coding, DoubleBitsRoundTripNaNPayload) {
  const uint64_t nan_bits = 0x7ff8000000000123ull;
  EXPECT_EQ(DoubleToBits(BitsToDouble(nan_bits)), nan_bits);
  EXPECT_TRUE(std::isnan(BitsToDouble(nan_bits)));
}

}  // namespace
}  // namespace sundial
