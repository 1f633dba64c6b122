// Fewer, larger disk writes for a trickle (README "Running on an SD card"):
// sealed pages wait in memory until enough are pending or the oldest has
// waited five minutes, and a checkpoint waits for enough WAL volume.
#include <memory>
#include <string>
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

struct Opened {
  std::unique_ptr<StorageImpl> db;
  FaultInjectionEnv* fault = nullptr;  // owned by db
  SeriesId id = 0;
};

// Maintenance runs only when the test calls TEST_RunMaintenance.
Opened OpenManual(const StorageOptions& o) {
  Opened r;
  auto env = std::make_unique<FaultInjectionEnv>(NewPosixEnv());
  r.fault = env.get();
  // The clock reads noon UTC of the next day, so that "an hour ago" is in
  // the current day partition whenever the test runs (between 00:00 and
  // 01:00 it was in one that had ended, whose head maintenance seals).
  constexpr int64_t kDayMs = 86400000;
  const int64_t now = r.fault->NowMs();
  r.fault->AdvanceClock((now / kDayMs + 1) * kDayMs + kDayMs / 2 - now);
  Status s = StorageImpl::Open(o, std::move(env), &r.db, false);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return r;
  TagRef tag{"host", "a"};
  EXPECT_TRUE(r.db->ResolveSeries("m", &tag, 1, &r.id).ok());
  return r;
}

// Appends points one by one from t0 until `pages` pages were sealed;
// returns how many points.
int AppendUntilSealed(StorageImpl* db, SeriesId id, Timestamp t0, uint64_t pages) {
  int n = 0;
  while (db->stats().pages_sealed < pages) {
    SeriesPoint p{id, t0 + n * 1000, Value::Int((n * 7919) % 100003)};
    EXPECT_TRUE(db->Append(&p, 1).ok());
    ++n;
  }
  return n;
}

TEST(WriteBatching, FewSealedPagesWaitThenGoOutTogether) {
  TempDir dir;
  Opened d = OpenManual(SmallOptions(dir.path()));
  ASSERT_TRUE(d.db);
  const Timestamp t0 = d.fault->NowMs() - 3600000;
  const int n = AppendUntilSealed(d.db.get(), d.id, t0, 3);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, 0u);
  EXPECT_EQ(d.db->stats().pages_pending, 3u);
  // Readers see the waiting pages.
  EXPECT_EQ(ReadAll(d.db.get(), d.id).size(), static_cast<size_t>(n));
  d.fault->AdvanceClock(4 * 60000);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, 0u);
  d.fault->AdvanceClock(60000);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, 3u);
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  EXPECT_EQ(ReadAll(d.db.get(), d.id).size(), static_cast<size_t>(n));
}

TEST(WriteBatching, ManySealedPagesAreWrittenAtOnce) {
  TempDir dir;
  Opened d = OpenManual(SmallOptions(dir.path()));
  ASSERT_TRUE(d.db);
  const int n = AppendUntilSealed(d.db.get(), d.id, d.fault->NowMs() - 86400000, 130);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  EXPECT_GE(d.db->stats().pages_written, 130u);
  // What a restart finds: the pages, plus the WAL for the open head.
  d.db.reset();
  std::unique_ptr<Storage> again;
  ASSERT_TRUE(Storage::Open(SmallOptions(dir.path()), &again).ok());
  EXPECT_EQ(ReadAll(again.get(), d.id).size(), static_cast<size_t>(n));
}

TEST(WriteBatching, CheckpointWaitsForWalVolume) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  o.checkpoint_interval_ms = 1000;
  o.checkpoint_min_wal_bytes = 64 * 1024;
  Opened d = OpenManual(o);
  ASSERT_TRUE(d.db);
  const Timestamp t0 = d.fault->NowMs() - 3600000;
  int i = 0;
  auto append = [&](int count) {
    for (int k = 0; k < count; ++k, ++i) {
      SeriesPoint p{d.id, t0 + i * 1000, Value::Int(i)};
      ASSERT_TRUE(d.db->Append(&p, 1).ok());
    }
  };
  append(100);  // a few hundred bytes of WAL
  d.fault->AdvanceClock(2000);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().checkpoints, 0u);
  while (d.db->stats().wal_bytes_written < 64 * 1024) append(1000);
  d.fault->AdvanceClock(2000);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().checkpoints, 1u);
  EXPECT_EQ(ReadAll(d.db.get(), d.id).size(), static_cast<size_t>(i));
}

}  // namespace
}  // namespace sundial::storage
