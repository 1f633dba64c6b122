#include "sundial/compress/page_format.h"

#include <gtest/gtest.h>

#include <string>

#include "sundial/common/coding.h"

namespace sundial::compress {
namespace {

std::string Encode(const PageHeader& h) {
  std::string s(kPageHeaderSize, '\0');
  EncodePageHeader(h, &s[0]);
  return s;
}

TEST(PageFormat, HeaderRoundTripsAndLayoutIsFixed) {
  PageHeader h;
  h.value_encoding = ValueEncoding::kDecimal;
  h.seconds = true;
  h.param = 2;
  h.count = 513;
  h.first_t = 1700000005000;
  h.min_t = 1700000000000;
  h.max_t = 1700000100000;
  const std::string s = Encode(h);
  EXPECT_EQ(static_cast<uint8_t>(s[0]), 1);
  EXPECT_EQ(static_cast<uint8_t>(s[1]), 0x25);  // decimal, seconds, scale 2
  EXPECT_EQ(DecodeFixed16(&s[2]), 513);
  EXPECT_EQ(DecodeFixed64(&s[4]), 1700000005000u);
  EXPECT_EQ(DecodeFixed32(&s[12]), 5000u);
  EXPECT_EQ(DecodeFixed32(&s[16]), 95000u);
  PageHeader d;
  ASSERT_TRUE(DecodePageHeader(s, &d).ok());
  EXPECT_EQ(d.value_encoding, ValueEncoding::kDecimal);
  EXPECT_TRUE(d.seconds);
  EXPECT_EQ(d.param, 2);
  EXPECT_EQ(d.count, 513u);
  EXPECT_EQ(d.first_t, h.first_t);
  EXPECT_EQ(d.min_t, h.min_t);
  EXPECT_EQ(d.max_t, h.max_t);
}

TEST(PageFormat, ExtremeTimestamps) {
  PageHeader h;
  h.first_t = h.min_t = kMinTimestamp;
  h.max_t = kMinTimestamp + 10;
  PageHeader d;
  ASSERT_TRUE(DecodePageHeader(Encode(h), &d).ok());
  EXPECT_EQ(d.min_t, kMinTimestamp);
  h.first_t = h.max_t = kMaxTimestamp;
  h.min_t = kMaxTimestamp - 10;
  ASSERT_TRUE(DecodePageHeader(Encode(h), &d).ok());
  EXPECT_EQ(d.max_t, kMaxTimestamp);
  // A min_back that would wrap below int64 min is corrupt.
  std::string s = Encode(h);
  EncodeFixed64(&s[4], static_cast<uint64_t>(kMinTimestamp));
  EncodeFixed32(&s[12], 1);
  EXPECT_TRUE(DecodePageHeader(s, &d).IsCorruption());
}

TEST(PageFormat, RejectsInvalidEncodingBytes) {
  PageHeader h;
  std::string s = Encode(h);
  PageHeader d;
  for (int b = 0; b < 256; ++b) {
    s[1] = static_cast<char>(b);
    const bool valid = (b & 3) != 3 && ((b & 3) != 2 || (b >> 3) == 0);
    EXPECT_EQ(DecodePageHeader(s, &d).ok(), valid) << b;
  }
  s[1] = 0x4;  // seconds page whose first_t is not a whole second
  EncodeFixed64(&s[4], 1500);
  EXPECT_TRUE(DecodePageHeader(s, &d).IsCorruption());
}

}  // namespace
}  // namespace sundial::compress
