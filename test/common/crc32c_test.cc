#include "sundial/common/crc32c.h"

#include <gtest/gtest.h>

#include <string>

namespace sundial::crc32c {
namespace {

TEST(Crc32c, KnownVectors) {
  // RFC 3720 B.4 test vectors.
  std::string zeros(32, '\0');
  EXPECT_EQ(Value(zeros.data(), zeros.size()), 0x8a9136aau);
  std::string ones(32, '\xff');
  EXPECT_EQ(Value(ones.data(), ones.size()), 0x62a8ab43u);
  EXPECT_EQ(Value("123456789", 9), 0xe3069283u);
}

TEST(Crc32c, ExtendEqualsWhole) {
  const std::string s = "hello sundial, a small time-series database";
  for (size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(Extend(Value(s.data(), cut), s.data() + cut, s.size() - cut),
              Value(s.data(), s.size()));
  }
}

TEST(Crc32c, MaskRoundTrips) {
  const uint32_t crc = Value("foo", 3);
  EXPECT_NE(Mask(crc), crc);
  EXPECT_EQ(Unmask(Mask(crc)), crc);
}

}  // namespace
}  // namespace sundial::crc32c
