#include "sundial/compress/page_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sundial/common/coding.h"
#include "sundial/compress/page_iterator.h"

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

TEST(PageFormat, Version2HeaderMeansFrameTimestamps) {
  PageHeader h;
  h.frame = true;
  h.count = 3;
  h.first_t = h.min_t = h.max_t = 1700000000123;
  std::string s = Encode(h);
  EXPECT_EQ(static_cast<uint8_t>(s[0]), kFramePageFormatVersion);
  PageHeader d;
  ASSERT_TRUE(DecodePageHeader(s, &d).ok());
  EXPECT_TRUE(d.frame);
  EXPECT_FALSE(d.seconds);
  h.first_t = h.min_t = h.max_t = 1700000000000;
  s = Encode(h);
  s[1] = 0x4;  // frame pages are millisecond pages
  EXPECT_TRUE(DecodePageHeader(s, &d).IsCorruption());
  h.frame = false;
  s = Encode(h);
  EXPECT_EQ(static_cast<uint8_t>(s[0]), kPageFormatVersion);
  ASSERT_TRUE(DecodePageHeader(s, &d).ok());
  EXPECT_FALSE(d.frame);
  for (int v : {0, 3, 255}) {
    s[0] = static_cast<char>(v);
    EXPECT_TRUE(DecodePageHeader(s, &d).IsCorruption()) << v;
  }
}

// Version 1 pages as written before version 2 existed (storage keeps them
// on disk): they must decode to exactly these points for ever.
struct StoredPage {
  const char* name;
  std::string bytes;
  size_t count;
};

uint64_t Lcg(uint64_t* r) {
  *r = *r * 6364136223846793005ull + 1442695040888963407ull;
  return *r;
}

// The points the stored pages were built from (a prefix of each list).
std::vector<std::vector<Sample>> StoredPagePoints() {
  std::vector<std::vector<Sample>> out(5);
  uint64_t r = 7;
  int64_t t = 1700000000123, v = 500;
  for (int i = 0; i < 200; ++i) {
    Lcg(&r);
    t += 10000 + static_cast<int64_t>((r >> 33) % 2001) - 1000;
    v += static_cast<int64_t>((r >> 20) % 11) - 5;
    out[0].push_back({t, Value::Int(v)});
  }
  for (int i = 0; i < 200; ++i) {
    out[1].push_back({1700000000000 + i * 10000,
                      Value::Float((2000 + (i * 37) % 101 - 50) / 100.0)});
  }
  double x = 100;
  for (int i = 0; i < 200; ++i) {
    x += static_cast<double>(Lcg(&r) >> 11) * 0x1.0p-53 - 0.5;
    out[2].push_back({1700000000000 + i * 10000, Value::Float(x)});
  }
  for (int i = 0; i < 200; ++i) {
    out[3].push_back({1700000000000 + i * 10000, i % 50 == 7 ? Value::Float(1.5)
                                                 : Value::Int(i < 100 ? 42 : 1000 + i * 60)});
  }
  for (int i = 0; i < 200; ++i) {
    out[4].push_back({1700000000000 + i * 1000 + (i % 3), Value::Int(i * 1000)});
  }
  return out;
}

TEST(PageFormat, DecodesStoredVersion1Pages) {
  const StoredPage pages[] = {
      {"int-ms-jitter",
       std::string("\x01\x00\x2a\x00\x4c\x93\xe5\xcf\x8b\x01\x00\x00\x00\x00\x00\x00\xeb\x5c\x06\x00\xff\x15\xef\xff"
                   "\x7f\xa4\x4b\xfb\x9f\x68\xfc\xfd\x4f\xa4\xbc\xff\x0a\x26\xff\x13\xf2\xff\x02\xfa\xff\x09\xf9\x7f"
                   "\x91\xe6\xef\x3f\x03\x53\xef\x15\x7a\x8e\xfb\x25\xff\x6b\x61\x56\xfd\xe6\xfd\x39\xef\x7b\xb7\x3e"
                   "\xb7\xe6\x7c\x0e\xbe\x5f\xd3\x04\xec\xfd\x54\x2a\xe9\xc4\xd6\x55\xda\x5b\xfc\x86\xec\x89\x41\x9f"
                   "\xdc\xb7\xe1\x72\xf6\xe4\x71\x6f\x9b\x2c\x4a\xc8\x78\x69\xd7\xc7\xd1\x57\xc0\x4f\xd6\xf1\x42\x91"
                   "\xa3\x91\x69\x3b\x7f\x2e",
                   126),
       42},
      {"decimal-seconds",
       std::string("\x01\x2d\x58\x00\x00\x68\xe5\xcf\x8b\x01\x00\x00\x00\x00\x00\x00\x70\x46\x0d\x00\xff\x19\x3b\xff"
                   "\xbf\x30\xff\x1f\x92\xf8\x8f\x40\xf6\x1f\x91\x8c\xff\x08\x64\x7f\x09\x7f\xc8\x5f\xf2\x10\x2f\xc1"
                   "\x43\xbc\x04\x0f\xf1\x12\x3c\xc4\x4b\x3c\xc4\x4b\x30\xa4\x25\x31\xa4\x25\x31\xa4\x25\x0d\x69\x49"
                   "\x0c\x69\x49\x0c\x69\x49\x43\x5a\x12\x43\x5a\x12\x43\x5a\x12\x43\x5a\xd2\x90\x96\xc4\x90\x96\xc4"
                   "\x90\x96\xc4\x90\x96\x34\xa4\x25\x31\xa4\x25\x31\xa4\x25\x0d\x69\x49\x0c\x69\x49\x0c\x69\x49\x0c"
                   "\x69\x49\x43\x5a\x12\x43\x5a\x12",
                   128),
       88},
      {"xor",
       std::string("\x01\x06\x10\x00\x00\x68\xe5\xcf\x8b\x01\x00\x00\x00\x00\x00\x00\xf0\x49\x02\x00\x99\xcb\xf8\xcd"
                   "\xf2\xc2\x63\x01\xfd\x2f\xcc\xd5\xfc\xde\xcb\x13\xe8\x8c\xda\x49\xdb\x43\x5c\xad\xc0\x43\x50\x28"
                   "\x17\x37\xdb\xb3\xcb\x1e\xff\x8c\x98\xe6\x18\x72\x88\xc4\x3d\xc4\x08\x0d\xcf\x23\x61\xa6\xb2\x6e"
                   "\x9b\xde\x0a\x1b\x51\x1f\xc5\x22\x37\x3a\xe8\xb6\xee\xaa\xed\x4b\x47\x77\x65\x39\x6d\x29\x12\xa2"
                   "\x51\xd6\x7d\xbd\x7e\x90\xc7\x94\x37\xe2\xb9\x9d\xf0\x2f\x5d\x58\x40\x1a\x54\xaf\x67\xf0\xe8\xb4"
                   "\xa6\xcc\x06\x88\xc6\x87\x08",
                   127),
       16},
      {"int-runs-escapes-dod",
       std::string("\x01\x1c\xc8\x00\x00\x68\xe5\xcf\x8b\x01\x00\x00\x00\x00\x00\x00\x70\x5d\x1e\x00\xff\x0f\xd3\xff"
                   "\x85\x09\x00\xff\x83\x00\x00\x00\x00\x00\x00\xf8\x3f\xff\x83\x31\x00\xfe\x07\x01\x00\x00\x00\x00"
                   "\x00\xf0\x7f\xfe\x07\x55\x00\xfc\x6f\xb4\x6c\xff\x1b\xf0\x1a\x00\xff\x83\x00\x00\x00\x00\x00\x00"
                   "\xf8\x3f\xda\x21\x1d\xff\x83\x2f\x00\xfe\x07\x01\x00\x00\x00\x00\x00\xf0\x7f\xb4\x43\x3a\xfe\x07"
                   "\x51\x00\x00",
                   99),
       200},
      {"int-shift-ms",
       std::string("\x01\x30\x39\x00\x00\x68\xe5\xcf\x8b\x01\x00\x00\x00\x00\x00\x00\xc2\xda\x00\x00\xfe\x2f\xa2\xff"
                   "\x1f\x91\xef\x3f\x22\xff\xfb\x8f\xc8\xff\xfd\xcb\xfe\xe5\xef\xe5\xbf\x97\x7b\xf9\xf7\xf2\xdf\xcb"
                   "\xbd\xfc\x7b\xf9\x6f\x79\xcb\x9f\xe5\xef\xf2\x96\x3f\xcb\xdf\xe5\x2d\x7f\x96\xbf\xcb\x5b\xfe\x2c"
                   "\x7f\x97\xb7\xfc\x59\xfe\x2e\x6f\xf9\xb3\xfc\x5d\xde\xf2\x67\xf9\xbb\xbc\xe5\xcf\xf2\x77\x79\xcb"
                   "\x9f\xe5\xd7\xf2\x96\x1f\xcb\xaf\xe5\x2d\x3f\x96\x5f\xcb\x5b\x7e\x2c\xbf\x96\xb7\xfc\x58\x7e\x2d"
                   "\x6f\xf9\xb1\xfc\x5a\xde\xf2",
                   127),
       57},
  };
  const auto points = StoredPagePoints();
  for (size_t k = 0; k < points.size(); ++k) {
    const StoredPage& p = pages[k];
    PageIterator it(p.bytes);
    ASSERT_TRUE(it.status().ok()) << p.name;
    EXPECT_EQ(static_cast<uint8_t>(p.bytes[0]), 1) << p.name;
    EXPECT_FALSE(it.header().frame);
    size_t i = 0;
    for (; it.Next(); ++i) {
      ASSERT_LT(i, p.count) << p.name;
      ASSERT_EQ(it.t(), points[k][i].t) << p.name << " point " << i;
      ASSERT_TRUE(it.v().BitEquals(points[k][i].v)) << p.name << " point " << i;
    }
    EXPECT_TRUE(it.status().ok()) << p.name;
    EXPECT_EQ(i, p.count) << p.name;
  }
}

}  // namespace
}  // namespace sundial::compress
