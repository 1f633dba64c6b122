#include "sundial/compress/page_iterator.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "compress/test_util.h"
#include "sundial/common/coding.h"

namespace sundial::compress {
namespace {

std::string SamplePage(int n, bool floats) {
  PageBuilder b;
  for (int i = 0; i < n; ++i) {
    const Value v = floats ? Value::Float(i * 1.37) : Value::Int(i * i);
    if (!b.Append(1700000000000 + i * 10000 + (i % 3), v)) break;
  }
  return std::string(b.data());
}

// A frame page (version 2) of about 100 points.
std::string FramePage() {
  const auto pages = BuildPages(JitteryMs(400, 3), 256);
  for (const auto& p : pages) {
    if (PageIterator(p).header().frame) return p;
  }
  std::abort();
}

// Walks a (possibly damaged) page: every point it yields lies within the
// header's time range, and there are no more than a page can count.
void ExpectPointsWithinHeader(const std::string& page) {
  PageIterator it(page);
  int n = 0;
  while (it.Next()) {
    ASSERT_GE(it.t(), it.header().min_t);
    ASSERT_LE(it.t(), it.header().max_t);
    ASSERT_LE(++n, 65535);
  }
}

// Drains it; returns the number of points.
int Drain(PageIterator* it) {
  int n = 0;
  while (it->Next()) ++n;
  return n;
}

TEST(PageIterator, EmptyIteratorAndEmptyPage) {
  PageIterator it;
  EXPECT_FALSE(it.Next());
  EXPECT_TRUE(it.status().ok());
  PageBuilder b;
  it.Reset(b.data());
  EXPECT_TRUE(it.status().ok());
  EXPECT_FALSE(it.Next());
  EXPECT_TRUE(it.status().ok());
}

TEST(PageIterator, RejectsBadHeaders) {
  std::string p = SamplePage(10, false);
  PageIterator it;
  it.Reset(std::string_view(p).substr(0, kPageHeaderSize - 1));
  EXPECT_TRUE(it.status().IsCorruption());
  EXPECT_FALSE(it.Next());
  std::string bad = p;
  bad[0] = 3;  // version
  it.Reset(bad);
  EXPECT_TRUE(it.status().IsCorruption());
  bad = p;
  bad[1] = 3;  // value encoding 3
  it.Reset(bad);
  EXPECT_TRUE(it.status().IsCorruption());
  bad = p;
  bad[1] = static_cast<char>(0x22);  // a parameter on an xor page
  it.Reset(bad);
  EXPECT_TRUE(it.status().IsCorruption());
  bad = p;
  EncodeFixed32(&bad[12], 0xffffffffu);  // span too large
  EncodeFixed32(&bad[16], 0xffffffffu);
  it.Reset(bad);
  EXPECT_TRUE(it.status().IsCorruption());
  // A valid header again resets the status.
  it.Reset(p);
  EXPECT_TRUE(it.status().ok());
  EXPECT_EQ(Drain(&it), 10);
}

TEST(PageIterator, TruncatedPagesReportCorruption) {
  for (bool floats : {false, true}) {
    const std::string p = SamplePage(40, floats);
    for (size_t len = kPageHeaderSize; len < p.size(); ++len) {
      // Copy so that ASan catches any read past the span.
      const std::string cut = p.substr(0, len);
      PageIterator it(cut);
      const int n = Drain(&it);
      EXPECT_LT(n, 40);
      EXPECT_TRUE(it.status().IsCorruption()) << "len " << len;
    }
  }
}

TEST(PageIterator, CountBeyondStreamIsCorruption) {
  std::string p = SamplePage(5, true);
  EncodeFixed16(&p[2], 60000);
  PageIterator it(p);
  Drain(&it);
  EXPECT_TRUE(it.status().IsCorruption());
}

TEST(PageIterator, RandomCorruptionNeverCrashes) {
  std::mt19937 rng(TestSeed());
  const std::string base = SamplePage(100, true);
  for (int i = 0; i < 20000; ++i) {
    std::string p = base;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      p[rng() % p.size()] ^= static_cast<char>(1 << (rng() % 8));
    }
    p.resize(kPageHeaderSize + rng() % (p.size() - kPageHeaderSize + 1));
    ExpectPointsWithinHeader(p);
  }
}

TEST(PageIterator, SeekMovesForwardOnly) {
  PageBuilder b;
  for (Timestamp t : {1000, 2000, 3000, 2500, 4000}) {
    ASSERT_TRUE(b.Append(t, Value::Int(t)));
  }
  PageIterator it(b.data());
  ASSERT_TRUE(it.Seek(2000));
  EXPECT_EQ(it.t(), 2000);
  ASSERT_TRUE(it.Seek(1500));  // the current point already qualifies
  EXPECT_EQ(it.t(), 2000);
  ASSERT_TRUE(it.Seek(2600));
  EXPECT_EQ(it.t(), 3000);
  ASSERT_TRUE(it.Seek(3500));  // skips the late 2500
  EXPECT_EQ(it.t(), 4000);
  EXPECT_FALSE(it.Seek(5000));
  EXPECT_TRUE(it.status().ok());
  it.Reset(b.data());
  EXPECT_FALSE(it.Seek(4001));
}

TEST(PageIterator, ReadsTheOpenHeadPage) {
  PageBuilder b;
  for (int i = 0; i < 500; ++i) {
    if (!b.Append(i * 1000, Value::Int(i % 7))) break;
    PageIterator it(b.data());
    EXPECT_EQ(Drain(&it), i + 1);
    ASSERT_TRUE(it.status().ok());
  }
}

TEST(PageIterator, TruncatedFramePagesReportCorruption) {
  const std::string p = FramePage();
  const auto count = static_cast<int>(PageIterator(p).header().count);
  for (size_t len = kPageHeaderSize; len < p.size(); ++len) {
    const std::string cut = p.substr(0, len);  // ASan sees reads past the span
    PageIterator it(cut);
    EXPECT_LT(Drain(&it), count);
    EXPECT_TRUE(it.status().IsCorruption()) << "len " << len;
  }
}

TEST(PageIterator, RandomCorruptionOfFramePagesNeverCrashes) {
  std::mt19937 rng(TestSeed());
  const std::string base = FramePage();
  for (int i = 0; i < 20000; ++i) {
    std::string p = base;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      // Mostly the frame fields at the stream's start, sometimes anywhere.
      const size_t at = rng() % 2 ? kPageHeaderSize + rng() % 10 : rng() % p.size();
      p[at] ^= static_cast<char>(1 << (rng() % 8));
    }
    p.resize(kPageHeaderSize + rng() % (p.size() - kPageHeaderSize + 1));
    ExpectPointsWithinHeader(p);
  }
}

}  // namespace
}  // namespace sundial::compress
