#include "storage/partition_set.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "common/fault_env.h"
#include "storage/test_util.h"
#include "sundial/compress/page_builder.h"

namespace sundial::storage {
namespace {

constexpr Timestamp kHour = 3600000;

std::string MakePage(Timestamp t0, int n) {
  compress::PageBuilder b(512);
  for (int i = 0; i < n; ++i) {
    const bool ok = b.Append(t0 + i * 1000, Value::Int(i));
    EXPECT_TRUE(ok);
  }
  return std::string(b.data());
}

// A backfill jumping between more partitions than stay open closes them
// without an fsync each; SyncAll then syncs every partition written since
// its last sync exactly once, and one that was not written not at all.
TEST(PartitionSet, ClosesBeyondMaxOpenWithoutSyncAndSyncAllSyncsEachOnce) {
  testing::TempDir dir;
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  env->SetFilter("/part/");
  PartitionSet set(env.get(), dir.path() + "/part", kHour, 64 * 1024, /*max_open=*/2);
  std::vector<std::string> warnings;
  ASSERT_TRUE(set.Open(&warnings).ok());
  constexpr int kParts = 10;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kParts; ++i) {
      const Timestamp t = i * kHour + round * 10000;
      PartitionRef part;
      ASSERT_TRUE(set.Locate(t, &part).ok());
      ASSERT_TRUE(part->AddPage(1, 0, MakePage(t, 3), t, t + 2000).ok());
    }
  }
  EXPECT_EQ(env->syncs(), 0u);  // closes cost no fsync
  EXPECT_GT(set.lru_closes(), 0u);
  EXPECT_LE(set.OpenCount(), 2u);
  // Reopened ones sync as open partitions: each is in one list only.
  EXPECT_EQ(set.unsynced_closed(), static_cast<size_t>(kParts) - set.OpenCount());
  ASSERT_TRUE(set.SyncAll().ok());
  EXPECT_EQ(env->syncs(), 2u * kParts);  // page file and index, once per partition
  EXPECT_EQ(set.unsynced_closed(), 0u);
  ASSERT_TRUE(set.SyncAll().ok());
  EXPECT_EQ(env->syncs(), 2u * kParts);  // nothing written since
  // Closed partitions kept their index entries: every page reads back.
  for (int i = 0; i < kParts; ++i) {
    PartitionRef part;
    ASSERT_TRUE(set.Locate(i * kHour, &part).ok());
    std::vector<PageRef> refs;
    part->PagesOf(1, kMinTimestamp, kMaxTimestamp, &refs);
    ASSERT_EQ(refs.size(), 3u) << "partition " << i;
    std::string page;
    for (const PageRef& r : refs) ASSERT_TRUE(part->ReadPage(1, r, &page).ok());
  }
}

// A partition removed by retention while waiting for its sync is not synced
// (and SyncAll does not fail on it).
TEST(PartitionSet, DroppedUnsyncedPartitionIsForgotten) {
  testing::TempDir dir;
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  env->SetFilter("/part/");
  PartitionSet set(env.get(), dir.path() + "/part", kHour, 64 * 1024, /*max_open=*/2);
  std::vector<std::string> warnings;
  ASSERT_TRUE(set.Open(&warnings).ok());
  for (int i = 0; i < 4; ++i) {
    PartitionRef part;
    ASSERT_TRUE(set.Locate(i * kHour, &part).ok());
    ASSERT_TRUE(part->AddPage(1, 0, MakePage(i * kHour, 3), i * kHour, i * kHour + 2000).ok());
  }
  ASSERT_EQ(set.unsynced_closed(), 2u);
  EXPECT_EQ(set.DropBefore(2 * kHour), 2u);
  EXPECT_EQ(set.unsynced_closed(), 0u);
  ASSERT_TRUE(set.SyncAll().ok());
  EXPECT_EQ(env->syncs(), 4u);  // the two open ones
}

}  // namespace
}  // namespace sundial::storage
