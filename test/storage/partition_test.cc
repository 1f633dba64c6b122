#include "storage/partition.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "storage/test_util.h"
#include "sundial/compress/page_builder.h"

namespace sundial::storage {
namespace {

constexpr Timestamp kDay = 86400000;

std::string MakePage(Timestamp t0, int n) {
  compress::PageBuilder b(512);
  for (int i = 0; i < n; ++i) {
    const bool ok = b.Append(t0 + i * 1000, Value::Int(i * 37 % 11));
    EXPECT_TRUE(ok);
  }
  return std::string(b.data());
}

// The in-memory index keeps exact times, offsets beyond 4 GiB and flags.
TEST(Partition, IndexEntriesRoundTripExactly) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const Timestamp start = 19676 * kDay;
  Partition p(env.get(), dir.path() + "/p", start, start + kDay, 64 * 1024);
  std::vector<std::string> warnings;
  ASSERT_TRUE(p.Open(&warnings).ok());
  ASSERT_TRUE(p.AddPage(3, 0, MakePage(start + 5, 10), start + 5, start + 9005).ok());
  ASSERT_TRUE(p.TEST_SetPageFileEnd((uint64_t{5} << 30) + 123).ok());  // sparse, > 4 GiB
  ASSERT_TRUE(p.AddPage(3, kPageFlagOutOfOrder, MakePage(start + 100, 3), start + 100,
                        start + 2100)
                  .ok());
  ASSERT_TRUE(p.AddPage(4, 0, MakePage(start + kDay - 3000, 3), start + kDay - 3000,
                        start + kDay - 1000)
                  .ok());
  std::vector<PageRef> refs;
  p.PagesOf(3, kMinTimestamp, kMaxTimestamp, &refs);
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].min_t, start + 5);
  EXPECT_EQ(refs[0].max_t, start + 9005);
  EXPECT_EQ(refs[0].flags, 0);
  EXPECT_GT(refs[1].offset, uint64_t{5} << 30);
  EXPECT_EQ(refs[1].flags, kPageFlagOutOfOrder);
  EXPECT_EQ(p.MaxTimeOf(4), start + kDay - 1000);
  std::string page;
  ASSERT_TRUE(p.ReadPage(3, refs[1], &page).ok());
  EXPECT_EQ(page, MakePage(start + 100, 3));
  ASSERT_TRUE(p.Sync().ok());
  // The same after loading the index from disk.
  Partition q(env.get(), dir.path() + "/p", start, start + kDay, 64 * 1024);
  ASSERT_TRUE(q.Open(&warnings).ok());
  EXPECT_TRUE(warnings.empty());
  std::vector<PageRef> again;
  q.PagesOf(3, kMinTimestamp, kMaxTimestamp, &again);
  ASSERT_EQ(again.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(again[i].offset, refs[i].offset);
    EXPECT_EQ(again[i].len, refs[i].len);
    EXPECT_EQ(again[i].min_t, refs[i].min_t);
    EXPECT_EQ(again[i].max_t, refs[i].max_t);
  }
}

// AddPages: the pages of one batch are found in order, with their times
// and flags, before and after the index is reloaded from disk.
TEST(Partition, AddPagesWritesABatchInOrder) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const Timestamp start = 19676 * kDay;
  Partition p(env.get(), dir.path() + "/p", start, start + kDay, 64 * 1024);
  std::vector<std::string> warnings;
  ASSERT_TRUE(p.Open(&warnings).ok());
  std::vector<std::string> bytes;
  std::vector<Partition::NewPage> batch;
  for (int i = 0; i < 150; ++i) bytes.push_back(MakePage(start + i * 100000, 1 + i % 40));
  for (int i = 0; i < 150; ++i) {
    const Timestamp t0 = start + i * 100000;
    batch.push_back(Partition::NewPage{static_cast<SeriesId>(1 + i % 3),
                                       static_cast<uint8_t>(i % 7 == 0 ? kPageFlagOutOfOrder : 0),
                                       bytes[i], t0, t0 + (i % 40) * 1000});
  }
  ASSERT_TRUE(p.AddPages(batch.data(), batch.size()).ok());
  ASSERT_TRUE(p.AddPages(batch.data(), 0).ok());
  auto check = [&](Partition* q) {
    for (SeriesId s = 1; s <= 3; ++s) {
      std::vector<PageRef> refs;
      q->PagesOf(s, kMinTimestamp, kMaxTimestamp, &refs);
      ASSERT_EQ(refs.size(), 50u);
      for (size_t k = 0; k < refs.size(); ++k) {
        const size_t i = k * 3 + (s - 1);
        EXPECT_EQ(refs[k].min_t, batch[i].min_t);
        EXPECT_EQ(refs[k].max_t, batch[i].max_t);
        EXPECT_EQ(refs[k].flags, batch[i].flags);
        std::string page;
        ASSERT_TRUE(q->ReadPage(s, refs[k], &page).ok());
        EXPECT_EQ(page, bytes[i]);
      }
    }
  };
  check(&p);
  ASSERT_TRUE(p.Sync().ok());
  Partition q(env.get(), dir.path() + "/p", start, start + kDay, 64 * 1024);
  ASSERT_TRUE(q.Open(&warnings).ok());
  EXPECT_TRUE(warnings.empty());
  check(&q);
}

// A partition longer than 2^32 ms rounds times outward, never inward, and
// MaxTimeOf stays exact.
TEST(Partition, LongPartitionsRoundTimesOutward) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const Timestamp start = 0, end = 400 * kDay;
  Partition p(env.get(), dir.path() + "/p", start, end, 64 * 1024);
  std::vector<std::string> warnings;
  ASSERT_TRUE(p.Open(&warnings).ok());
  const Timestamp t0 = 200 * kDay + 7;
  ASSERT_TRUE(p.AddPage(1, 0, MakePage(t0, 5), t0, t0 + 4000).ok());
  std::vector<PageRef> refs;
  p.PagesOf(1, t0, t0, &refs);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_LE(refs[0].min_t, t0);
  EXPECT_GE(refs[0].max_t, t0 + 4000);
  EXPECT_EQ(p.MaxTimeOf(1), t0 + 4000);
}

// A page's CRC is checked on its first read only; the index remembers it.
TEST(Partition, CrcCheckedOnFirstReadOnly) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  Partition p(env.get(), dir.path() + "/p", 0, kDay, 64 * 1024);
  std::vector<std::string> warnings;
  ASSERT_TRUE(p.Open(&warnings).ok());
  ASSERT_TRUE(p.AddPage(1, 0, MakePage(1000, 20), 1000, 20000).ok());
  std::vector<PageRef> refs;
  p.PagesOf(1, 0, kDay, &refs);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_FALSE(refs[0].verified);
  std::string page;
  ASSERT_TRUE(p.ReadPage(1, refs[0], &page).ok());
  refs.clear();
  p.PagesOf(1, 0, kDay, &refs);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_TRUE(refs[0].verified);
  ASSERT_TRUE(p.ReadPage(1, refs[0], &page).ok());
  EXPECT_EQ(page, MakePage(1000, 20));
}

// Cutting a page file back to a checkpoint's mark drops the later pages
// and their index entries, silently, and new pages go after the mark.
TEST(Partition, CutToMarkDropsLaterPages) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string pdir = dir.path() + "/p";
  uint64_t mark = 0;
  {
    Partition p(env.get(), pdir, 0, kDay, 64 * 1024);
    std::vector<std::string> warnings;
    ASSERT_TRUE(p.Open(&warnings).ok());
    ASSERT_TRUE(p.AddPage(1, 0, MakePage(1000, 20), 1000, 20000).ok());
    ASSERT_TRUE(p.Sync().ok());
    mark = p.Mark();
    ASSERT_TRUE(p.AddPage(1, 0, MakePage(30000, 20), 30000, 49000).ok());
    ASSERT_TRUE(p.AddPage(2, 0, MakePage(30000, 20), 30000, 49000).ok());
    ASSERT_TRUE(p.Sync().ok());
  }
  bool cut = false;
  ASSERT_TRUE(Partition::CutToMark(env.get(), pdir, mark, &cut).ok());
  EXPECT_TRUE(cut);
  {
    Partition p(env.get(), pdir, 0, kDay, 64 * 1024);
    std::vector<std::string> warnings;
    ASSERT_TRUE(p.Open(&warnings, true).ok());
    EXPECT_TRUE(warnings.empty());
    EXPECT_EQ(p.page_count(), 1u);
    EXPECT_FALSE(p.HasSeries(2));
    ASSERT_TRUE(p.AddPage(2, 0, MakePage(60000, 5), 60000, 64000).ok());
    ASSERT_TRUE(p.Sync().ok());
  }
  Partition p(env.get(), pdir, 0, kDay, 64 * 1024);
  std::vector<std::string> warnings;
  ASSERT_TRUE(p.Open(&warnings).ok());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(p.page_count(), 2u);  // no stale entry points at the new page
  std::vector<PageRef> refs;
  p.PagesOf(2, 0, kDay, &refs);
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].min_t, 60000);
  std::string page;
  ASSERT_TRUE(p.ReadPage(2, refs[0], &page).ok());
}

}  // namespace
}  // namespace sundial::storage
