#include "storage/page_file.h"

#include <gtest/gtest.h>

#include "storage/test_util.h"
#include "sundial/compress/page_builder.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {
namespace {

std::string MakePage(Timestamp t0, int n) {
  compress::PageBuilder b(512);
  for (int i = 0; i < n; ++i) {
    if (!b.Append(t0 + i * 1000, Value::Int(i))) break;
  }
  return std::string(b.data());
}

TEST(PageFile, AppendReadAndNeverCrossAWindow) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  PageFile f(env.get(), dir.path() + "/pages", 64 * 1024);
  ASSERT_TRUE(f.Open().ok());
  std::vector<std::pair<uint64_t, uint32_t>> where;
  for (int i = 0; i < 1000; ++i) {
    uint64_t off;
    uint32_t len;
    ASSERT_TRUE(f.Append(7, 0, MakePage(i * 100000, 20 + i % 50), &off, &len).ok());
    EXPECT_EQ(off / (64 * 1024), (off + len - 1) / (64 * 1024));
    where.emplace_back(off, len);
  }
  for (int i = 0; i < 1000; ++i) {
    std::string page;
    ASSERT_TRUE(f.Read(where[i].first, where[i].second, 7, true, &page).ok());
    EXPECT_EQ(page, MakePage(i * 100000, 20 + i % 50));
  }
  std::string page;
  // The wrong series, past the end; and a damaged record passes only
  // without the CRC check.
  EXPECT_TRUE(f.Read(where[3].first, where[3].second, 8, true, &page).IsCorruption());
  EXPECT_TRUE(f.Read(f.size(), 100, 7, true, &page).IsCorruption());
  int seen = 0;
  std::vector<std::string> warnings;
  ASSERT_TRUE(f.Scan([&](uint64_t off, uint32_t, SeriesId s, uint8_t, std::string_view) {
                       EXPECT_EQ(off, where[seen].first);
                       EXPECT_EQ(s, 7u);
                       ++seen;
                     },
                     &warnings)
                  .ok());
  EXPECT_EQ(seen, 1000);
  EXPECT_TRUE(warnings.empty());
  std::unique_ptr<File> raw;
  ASSERT_TRUE(env->OpenFile(dir.path() + "/pages", &raw).ok());
  const char junk = 0x5a;
  ASSERT_TRUE(raw->Write(where[5].first + where[5].second - 1, &junk, 1).ok());
  EXPECT_TRUE(f.Read(where[5].first, where[5].second, 7, true, &page).IsCorruption());
  EXPECT_TRUE(f.Read(where[5].first, where[5].second, 7, false, &page).ok());
}

// One AppendMany lays records out byte for byte as single Appends do,
// window padding included, and they read back and scan the same.
TEST(PageFile, AppendManyMatchesSingleAppends) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  PageFile one(env.get(), dir.path() + "/one", 64 * 1024);
  PageFile many(env.get(), dir.path() + "/many", 64 * 1024);
  ASSERT_TRUE(one.Open(9).ok());
  ASSERT_TRUE(many.Open(9).ok());
  std::vector<std::string> pages;
  for (int i = 0; i < 700; ++i) pages.push_back(MakePage(i * 100000, 20 + i % 50));
  std::vector<std::pair<uint64_t, uint32_t>> where;
  for (int i = 0; i < 700; ++i) {
    uint64_t off;
    uint32_t len;
    ASSERT_TRUE(one.Append(static_cast<SeriesId>(i % 5), i % 2, pages[i], &off, &len).ok());
    where.emplace_back(off, len);
  }
  // Batches of varied sizes, several of them crossing window boundaries.
  size_t i = 0;
  for (size_t n : {1u, 2u, 97u, 300u, 0u, 300u}) {
    std::vector<PageToWrite> batch(n);
    for (size_t k = 0; k < n; ++k) {
      batch[k].series = static_cast<SeriesId>((i + k) % 5);
      batch[k].flags = (i + k) % 2;
      batch[k].page = pages[i + k];
    }
    ASSERT_TRUE(many.AppendMany(batch.data(), n).ok());
    for (size_t k = 0; k < n; ++k) {
      EXPECT_EQ(batch[k].offset, where[i + k].first) << i + k;
      EXPECT_EQ(batch[k].len, where[i + k].second) << i + k;
    }
    i += n;
  }
  ASSERT_EQ(i, 700u);
  EXPECT_EQ(many.size(), one.size());
  std::string a, b;
  ASSERT_TRUE(env->ReadFileToString(dir.path() + "/one", &a).ok());
  ASSERT_TRUE(env->ReadFileToString(dir.path() + "/many", &b).ok());
  EXPECT_TRUE(a == b);
  std::string page;
  ASSERT_TRUE(many.Read(where[650].first, where[650].second, 0, true, &page).ok());
  EXPECT_EQ(page, pages[650]);
  // A page too large for a record refuses the whole batch.
  PageToWrite bad[2];
  bad[0].page = pages[0];
  const std::string huge(70 * 1024, 'x');
  bad[1].page = huge;
  const uint64_t end = many.size();
  EXPECT_FALSE(many.AppendMany(bad, 2).ok());
  EXPECT_EQ(many.size(), end);
}

// Offsets beyond 4 GiB (a sparse file): mapping windows there must work on
// 32-bit builds too.
TEST(PageFile, WillNeedThenReadScatteredRecords) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  PageFile f(env.get(), dir.path() + "/pages", 64 * 1024);
  ASSERT_TRUE(f.Open().ok());
  std::vector<std::pair<uint64_t, uint32_t>> mine;
  for (int i = 0; i < 300; ++i) {
    uint64_t off;
    uint32_t len;
    const SeriesId s = static_cast<SeriesId>(i % 3);
    ASSERT_TRUE(f.Append(s, 0, MakePage(i * 1000, 30), &off, &len).ok());
    if (s == 1) mine.emplace_back(off, len);
  }
  // Out of order, with a duplicate and an empty list: a hint only.
  std::vector<std::pair<uint64_t, uint32_t>> ranges(mine.rbegin(), mine.rend());
  ranges.push_back(mine[5]);
  f.WillNeed(&ranges);
  std::vector<std::pair<uint64_t, uint32_t>> none;
  f.WillNeed(&none);
  for (size_t k = 0; k < mine.size(); ++k) {
    std::string page;
    ASSERT_TRUE(f.Read(mine[k].first, mine[k].second, 1, true, &page).ok());
    EXPECT_EQ(page, MakePage(static_cast<int>(3 * k + 1) * 1000, 30));
  }
  // A record length beyond any page is refused before anything is read.
  std::string page;
  EXPECT_TRUE(f.Read(mine[0].first, 1u << 20, 1, true, &page).IsCorruption());
}

// ReadJoined reads scattered records in joined stretches; ParseRecord
// checks a record taken from them as Read checks one from the file.
TEST(PageFile, ReadJoinedThenParseRecords) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  PageFile f(env.get(), dir.path() + "/pages", 64 * 1024);
  ASSERT_TRUE(f.Open().ok());
  std::vector<std::pair<uint64_t, uint32_t>> mine;
  for (int i = 0; i < 600; ++i) {
    uint64_t off;
    uint32_t len;
    // Series 1 in two clumps: records 100-199 and 400-409.
    const SeriesId s = (i >= 100 && i < 200) || (i >= 400 && i < 410) ? 1 : 2;
    ASSERT_TRUE(f.Append(s, 0, MakePage(i * 1000, 30), &off, &len).ok());
    if (s == 1) mine.emplace_back(off, len);
  }
  std::vector<std::pair<uint64_t, uint32_t>> ranges(mine.rbegin(), mine.rend());
  ranges.emplace_back(f.size() + 1000, 100);  // past the end: left out
  JoinedRead got;
  ASSERT_TRUE(f.ReadJoined(&ranges, &got).ok());
  ASSERT_EQ(got.stretches.size(), 2u);  // one stretch per clump
  EXPECT_EQ(got.stretches[0].offset, mine[0].first);
  // Records outside the stretches are not found.
  EXPECT_EQ(got.Find(mine[0].first - 1, 10), nullptr);
  EXPECT_EQ(got.Find(mine[99].first, mine[99].second + 1), nullptr);
  EXPECT_EQ(got.Find(f.size() + 1000, 100), nullptr);
  for (size_t k = 0; k < mine.size(); ++k) {
    const char* rec = got.Find(mine[k].first, mine[k].second);
    ASSERT_NE(rec, nullptr) << k;
    std::string page;
    ASSERT_TRUE(f.ParseRecord(rec, mine[k].first, mine[k].second, 1, true, &page).ok());
    const int i = k < 100 ? static_cast<int>(100 + k) : static_cast<int>(300 + k);
    EXPECT_EQ(page, MakePage(i * 1000, 30));
  }
  // The wrong series, and a damaged byte that only the CRC check sees.
  std::string rec(got.Find(mine[0].first, mine[0].second), mine[0].second);
  std::string page;
  EXPECT_TRUE(f.ParseRecord(rec.data(), mine[0].first, mine[0].second, 2, true, &page)
                  .IsCorruption());
  rec[rec.size() - 1] ^= 0x40;
  EXPECT_TRUE(f.ParseRecord(rec.data(), mine[0].first, mine[0].second, 1, true, &page)
                  .IsCorruption());
  EXPECT_TRUE(f.ParseRecord(rec.data(), mine[0].first, mine[0].second, 1, false, &page).ok());
  // Nothing asked, nothing read.
  std::vector<std::pair<uint64_t, uint32_t>> none;
  ASSERT_TRUE(f.ReadJoined(&none, &got).ok());
  EXPECT_TRUE(got.stretches.empty());
}

TEST(PageFile, OffsetsBeyondFourGiB) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  PageFile f(env.get(), dir.path() + "/pages", 1 << 20);
  ASSERT_TRUE(f.Open().ok());
  const uint64_t base = (5ull << 30) + 12345;
  f.TEST_SetEnd(base);
  std::vector<std::pair<uint64_t, uint32_t>> where;
  for (int i = 0; i < 50; ++i) {
    uint64_t off;
    uint32_t len;
    ASSERT_TRUE(f.Append(3, 0, MakePage(i * 100000, 100), &off, &len).ok());
    EXPECT_GE(off, base);
    where.emplace_back(off, len);
  }
  EXPECT_GT(f.size(), 5ull << 30);
  for (int i = 0; i < 50; ++i) {
    std::string page;
    ASSERT_TRUE(f.Read(where[i].first, where[i].second, 3, true, &page).ok()) << i;
    compress::PageIterator it(page);
    ASSERT_TRUE(it.Next());
    EXPECT_EQ(it.t(), i * 100000);
  }
}

}  // namespace
}  // namespace sundial::storage
