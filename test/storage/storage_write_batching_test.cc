// Fewer, larger disk writes for a trickle (README "Running on an SD card"):
// sealed pages wait in memory until enough are pending or the oldest has
// waited six hours, and a checkpoint waits for enough WAL volume.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/fault_env.h"
#include "storage/page_file.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

using sundial::testing::FaultInjectionEnv;
using testing::ReadAll;
using testing::SmallOptions;
using testing::TempDir;

constexpr int64_t kMinuteMs = 60000;
constexpr int64_t kWaitMs = 6 * 3600000;  // kPendingMaxAgeMs

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
  // The clock reads 02:00 UTC of the next day, so that "an hour ago" is in
  // the current day partition whenever the test runs (between 00:00 and
  // 01:00 it was in one that had ended, whose head maintenance seals), and
  // so is the clock after two waits of kWaitMs.
  constexpr int64_t kDayMs = 86400000;
  const int64_t now = r.fault->NowMs();
  r.fault->AdvanceClock((now / kDayMs + 1) * kDayMs + 2 * 3600000 - now);
  Status s = StorageImpl::Open(o, std::move(env), &r.db, false);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return r;
  TagRef tag{"host", "a"};
  EXPECT_TRUE(r.db->ResolveSeries("m", &tag, 1, &r.id).ok());
  return r;
}

// Appends points one by one from t0 until `pages` pages were sealed (or a
// few more: the count is looked at every `step` points); returns how many
// points.
int AppendUntilSealed(StorageImpl* db, SeriesId id, Timestamp t0, uint64_t pages,
                      int step = 1) {
  int n = 0;
  while (db->stats().pages_sealed < pages) {
    for (int k = 0; k < step; ++k, ++n) {
      SeriesPoint p{id, t0 + int64_t{n} * 1000, Value::Int(int64_t{n} * 7919 % 100003)};
      EXPECT_TRUE(db->Append(&p, 1).ok());
    }
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
  d.fault->AdvanceClock(kWaitMs - kMinuteMs);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, 0u);
  d.fault->AdvanceClock(kMinuteMs);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, 3u);
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  EXPECT_EQ(ReadAll(d.db.get(), d.id).size(), static_cast<size_t>(n));
}

// Pages written by something else than the age limit (here a checkpoint)
// restart the wait: pages sealed after it wait their own kWaitMs, not
// what is left of the written ones'.
TEST(WriteBatching, PagesSealedAfterACheckpointWaitTheirOwnTime) {
  TempDir dir;
  Opened d = OpenManual(SmallOptions(dir.path()));
  ASSERT_TRUE(d.db);
  const Timestamp t0 = d.fault->NowMs() - 3600000;
  const int first = AppendUntilSealed(d.db.get(), d.id, t0, 3);
  d.db->TEST_RunMaintenance();  // the oldest pending page starts waiting
  EXPECT_EQ(d.db->stats().pages_written, 0u);
  ASSERT_TRUE(d.db->TEST_Checkpoint().ok());  // writes the pending pages
  const uint64_t written = d.db->stats().pages_written;
  EXPECT_GE(written, 3u);
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  d.fault->AdvanceClock(kWaitMs - kMinuteMs);
  const uint64_t sealed = d.db->stats().pages_sealed;
  const int more =
      AppendUntilSealed(d.db.get(), d.id, t0 + int64_t{first} * 1000, sealed + 2);
  d.db->TEST_RunMaintenance();  // these start waiting now
  d.fault->AdvanceClock(kMinuteMs);  // kWaitMs after the first ones began to wait
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, written);
  EXPECT_GE(d.db->stats().pages_pending, 2u);
  d.fault->AdvanceClock(kWaitMs - kMinuteMs);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  EXPECT_GT(d.db->stats().pages_written, written);
  EXPECT_EQ(ReadAll(d.db.get(), d.id).size(), static_cast<size_t>(first + more));
}

TEST(WriteBatching, ManySealedPagesAreWrittenAtOnce) {
  TempDir dir;
  Opened d = OpenManual(SmallOptions(dir.path()));
  ASSERT_TRUE(d.db);
  // 4096 pending pages are written at once (kPendingWritePages); fewer wait.
  const Timestamp t0 = d.fault->NowMs() - 86400000;
  const int few = AppendUntilSealed(d.db.get(), d.id, t0, 4000, 16);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_written, 0u);
  const int n = few + AppendUntilSealed(d.db.get(), d.id, t0 + int64_t{few} * 1000, 4098, 16);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  EXPECT_GE(d.db->stats().pages_written, 4098u);
  // What a restart finds: the pages, plus the WAL for the open head.
  d.db.reset();
  std::unique_ptr<Storage> again;
  ASSERT_TRUE(Storage::Open(SmallOptions(dir.path()), &again).ok());
  EXPECT_EQ(ReadAll(again.get(), d.id).size(), static_cast<size_t>(n));
}

// Sealed pages go to the page file grouped by metric, then by series, so
// that one metric's pages (what a query reads) lie side by side: series of
// two metrics created and filled alternately come out as metric "m1"'s
// pages, then "m2"'s, each series' pages together and in their order.
TEST(WriteBatching, PagesOfOneMetricLieSideBySide) {
  TempDir dir;
  Opened d = OpenManual(SmallOptions(dir.path()));
  ASSERT_TRUE(d.db);
  std::vector<SeriesId> ids;  // m1 h0, m2 h0, m1 h1, m2 h1, ...
  for (int h = 0; h < 3; ++h) {
    for (const char* metric : {"m1", "m2"}) {
      const std::string host = "h" + std::to_string(h);
      TagRef tag{"host", host};
      SeriesId id = 0;
      ASSERT_TRUE(d.db->ResolveSeries(metric, &tag, 1, &id).ok());
      ids.push_back(id);
    }
  }
  const Timestamp t0 = d.fault->NowMs() - 3600000;
  int n = 0;
  while (d.db->stats().pages_sealed < 3 * ids.size()) {  // round robin, one point each
    for (SeriesId id : ids) {
      SeriesPoint p{id, t0 + int64_t{n} * 1000, Value::Int((int64_t{n} * 7919 + id) % 100003)};
      ASSERT_TRUE(d.db->Append(&p, 1).ok());
    }
    ++n;
  }
  d.db->TEST_RunMaintenance();  // too few to write yet: they wait
  d.fault->AdvanceClock(kWaitMs);  // the oldest pending page has waited long enough
  d.db->TEST_RunMaintenance();
  ASSERT_EQ(d.db->stats().pages_pending, 0u);
  std::string path;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir.path() + "/part")) {
    if (e.path().filename() == "pages") path = e.path().string();
  }
  ASSERT_FALSE(path.empty());
  std::unique_ptr<Env> env = NewPosixEnv();
  PageFile file(env.get(), path, 64 * 1024);
  ASSERT_TRUE(file.Open().ok());
  std::vector<SeriesId> order;  // the series of each page, in file order
  std::vector<std::string> warnings;
  ASSERT_TRUE(file.Scan([&](uint64_t, uint32_t, SeriesId series, uint8_t,
                            std::string_view) { order.push_back(series); },
                        &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  ASSERT_GE(order.size(), 3 * ids.size());
  // Expected: m1's series (ids[0], ids[2], ids[4]), then m2's, each one's
  // pages in a row.
  std::vector<SeriesId> want_series = {ids[0], ids[2], ids[4], ids[1], ids[3], ids[5]};
  std::vector<SeriesId> got_series;
  for (SeriesId s : order) {
    if (got_series.empty() || got_series.back() != s) got_series.push_back(s);
  }
  EXPECT_EQ(got_series, want_series);
  // Every point reads back, from the page file and after a restart.
  for (SeriesId id : ids) EXPECT_EQ(ReadAll(d.db.get(), id).size(), static_cast<size_t>(n));
  d.db.reset();
  std::unique_ptr<Storage> again;
  ASSERT_TRUE(Storage::Open(SmallOptions(dir.path()), &again).ok());
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::vector<Sample> got = ReadAll(again.get(), ids[i]);
    ASSERT_EQ(got.size(), static_cast<size_t>(n));
    for (int k = 0; k < n; ++k) {
      ASSERT_EQ(got[k].t, t0 + int64_t{k} * 1000);
      ASSERT_TRUE(got[k].v.is_int());
      const int64_t want = (int64_t{k} * 7919 + static_cast<int64_t>(ids[i])) % 100003;
      ASSERT_EQ(got[k].v.int_value(), want);
    }
  }
}

// A partition due for compaction takes its pages still waiting to be
// written: none is left to go to a page file beside the new cold file
// (which would cost a second rewrite of the partition an hour later).
TEST(WriteBatching, CompactionTakesThePagesStillWaiting) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  constexpr int64_t kHour = 3600000;
  o.partition_duration_ms = kHour;
  o.compact_after_ms = 60000;
  Opened d = OpenManual(o);
  ASSERT_TRUE(d.db);
  // An hour that ended two hours ago: some of its pages on disk, then late
  // points to it, sealed as their pages fill, that wait.
  const Timestamp t0 = d.fault->NowMs() / kHour * kHour - 3 * kHour;
  int n = 0;
  for (; n < 1800; ++n) {
    SeriesPoint p{d.id, t0 + int64_t{n} * 2000, Value::Int(int64_t{n} * 7919 % 100003)};
    ASSERT_TRUE(d.db->Append(&p, 1).ok());
  }
  ASSERT_TRUE(d.db->TEST_FlushAll().ok());
  const uint64_t written = d.db->stats().pages_written;
  ASSERT_GT(written, 0u);
  const uint64_t sealed = d.db->stats().pages_sealed;
  for (int k = 0; d.db->stats().pages_sealed < sealed + 2; ++k, ++n) {
    SeriesPoint p{d.id, t0 + int64_t{k} * 2000 + 1000, Value::Int(k)};
    ASSERT_TRUE(d.db->Append(&p, 1).ok());
  }
  ASSERT_GE(d.db->stats().pages_pending, 2u);
  const std::string part =
      dir.path() + "/part/" + std::to_string(t0) + "_" + std::to_string(t0 + kHour);
  ASSERT_TRUE(std::filesystem::exists(part + "/pages"));
  d.fault->AdvanceClock(60000);
  d.db->TEST_RunMaintenance();
  EXPECT_EQ(d.db->stats().partitions_compacted, 1u);
  EXPECT_EQ(d.db->stats().pages_pending, 0u);
  EXPECT_GT(d.db->stats().pages_written, written);
  EXPECT_TRUE(std::filesystem::exists(part + "/cold"));
  EXPECT_FALSE(std::filesystem::exists(part + "/pages"));
  EXPECT_EQ(ReadAll(d.db.get(), d.id).size(), static_cast<size_t>(n));
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
