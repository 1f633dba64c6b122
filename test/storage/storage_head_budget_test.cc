// storage.head_memory: beyond the budget the largest open pages are sealed
// early, no point is lost or changed (also across a restart), pages less
// than half full are never sealed for it, and 0 turns it off.
#include <memory>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "common/fault_env.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

using sundial::testing::FaultInjectionEnv;
using testing::ReadAll;
using testing::SmallOptions;
using testing::TempDir;

constexpr int kSeries = 64;
constexpr Timestamp kT0 = 1000000;

struct Db {
  std::unique_ptr<StorageImpl> db;
  FaultInjectionEnv* env = nullptr;  // owned by db
  std::vector<SeriesId> ids;
};

Db Open(const StorageOptions& o) {
  Db d;
  auto env = std::make_unique<FaultInjectionEnv>(NewPosixEnv());
  d.env = env.get();
  const Status s = StorageImpl::Open(o, std::move(env), &d.db, /*start_maintenance=*/false);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return d;
  for (int i = 0; i < kSeries; ++i) {
    const std::string host = "h" + std::to_string(i);
    TagRef tag{"host", host};
    SeriesId id = 0;
    EXPECT_TRUE(d.db->ResolveSeries("m", &tag, 1, &id).ok());
    d.ids.push_back(id);
  }
  return d;
}

// Points 10 s apart with 2-decimal values that do not compress to nothing.
// Appends to want (one vector per series).
void Feed(Db* d, int first, int points, uint64_t seed, std::vector<std::vector<Sample>>* want) {
  std::mt19937_64 rng(seed);
  want->resize(d->ids.size());
  for (int p = first; p < first + points; ++p) {
    std::vector<SeriesPoint> batch;
    for (size_t i = 0; i < d->ids.size(); ++i) {
      const Sample s{kT0 + 10000 * p, Value::Float(static_cast<double>(rng() % 10000) / 100)};
      batch.push_back(SeriesPoint{d->ids[i], s.t, s.v});
      (*want)[i].push_back(s);
    }
    EXPECT_TRUE(d->db->Append(batch.data(), batch.size()).ok());
  }
}

void ExpectAll(Db* d, const std::vector<std::vector<Sample>>& want) {
  for (size_t i = 0; i < d->ids.size(); ++i) {
    const std::vector<Sample> got = ReadAll(d->db.get(), d->ids[i]);
    ASSERT_EQ(got.size(), want[i].size()) << "series " << i;
    for (size_t j = 0; j < got.size(); ++j) {
      ASSERT_EQ(got[j].t, want[i][j].t);
      ASSERT_TRUE(got[j].v.BitEquals(want[i][j].v)) << got[j].v.AsDouble();
    }
  }
}

TEST(StorageHeadBudget, SealsLargestPagesEarlyAndKeepsEveryPoint) {
  const uint64_t seed = testing::TestSeed(14);
  SCOPED_TRACE("seed " + std::to_string(seed));
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());  // 256-byte pages
  o.head_memory_bytes = kSeries * 160;
  std::vector<std::vector<Sample>> want;
  {
    Db d = Open(o);
    ASSERT_NE(d.db, nullptr);
    // About 12 bits a point: 100 points take most of a 256-byte page.
    Feed(&d, 0, 100, seed, &want);
    const StorageStats before = d.db->stats();
    d.env->AdvanceClock(2000);
    d.db->TEST_RunMaintenance();
    const StorageStats after = d.db->stats();
    EXPECT_GT(after.heads_sealed_early, 0u);
    EXPECT_LE(after.heads_sealed_early, static_cast<uint64_t>(kSeries));  // once each at most
    EXPECT_LT(after.memory_heads_bytes, before.memory_heads_bytes);
    // Sealed pages join the pending ones (written in batches, see
    // storage_maintenance.cc), so they are pending or written by now.
    EXPECT_GT(after.pages_pending + after.pages_written,
              before.pages_pending + before.pages_written);
    ExpectAll(&d, want);
    // Points after the early seal go on in new pages.
    Feed(&d, 100, 40, seed + 1, &want);
    ExpectAll(&d, want);
  }
  {
    Db d = Open(o);  // recovery: pages written early plus the WAL's rest
    ASSERT_NE(d.db, nullptr);
    ExpectAll(&d, want);
  }
}

TEST(StorageHeadBudget, NeverSealsPagesLessThanHalfFull) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  o.head_memory_bytes = 1;  // far below what the series need
  Db d = Open(o);
  ASSERT_NE(d.db, nullptr);
  std::vector<std::vector<Sample>> want;
  Feed(&d, 0, 10, 7, &want);  // small heads
  for (int pass = 0; pass < 5; ++pass) {
    d.env->AdvanceClock(2000);
    d.db->TEST_RunMaintenance();
  }
  EXPECT_EQ(d.db->stats().heads_sealed_early, 0u);
  ExpectAll(&d, want);
}

TEST(StorageHeadBudget, ZeroMeansNoLimit) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  o.head_memory_bytes = 0;
  Db d = Open(o);
  ASSERT_NE(d.db, nullptr);
  std::vector<std::vector<Sample>> want;
  Feed(&d, 0, 100, 9, &want);
  d.env->AdvanceClock(2000);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().heads_sealed_early, 0u);
  ExpectAll(&d, want);
}

}  // namespace
}  // namespace sundial::storage
