#include "sundial/rollup/rollup_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "common/fault_env.h"
#include "storage/storage_impl.h"
#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"
#include "test_util.h"

namespace sundial::rollup {
namespace {

constexpr Timestamp kT0 = 19000 * kDayMs;  // a UTC day start

HourStats RawHour(storage::Storage* st, SeriesId id, Timestamp hour) {
  HourStats s;
  s.hour = hour;
  auto it = st->NewIterator(id, hour, hour + kHourMs - 1);
  while (it->Next()) s.Add(it->t(), it->v().AsDouble());
  return s;
}

// A rollup store and a storage engine on one data dir, with a fake clock.
class Fixture {
 public:
  explicit Fixture(const std::string& dir) : dir_(dir) {}
  ~Fixture() { Close(); }

  void Open() {
    RollupOptions ro;
    ro.dir = dir_ + "/rollup";
    ro.grace_ms = 10 * 60000;
    ro.clock = [this] { return now_.load(); };
    ro.max_dirty_pairs = max_dirty_pairs_;
    ro.batch_ms = batch_ms_;
    ro.env = env_;
    ASSERT_TRUE(RollupStore::Open(ro, &rollups_).ok());
    storage::StorageOptions so = storage_options_;
    so.data_dir = dir_;
    so.late_observer = rollups_.get();
    if (storage_env_) {
      std::unique_ptr<storage::StorageImpl> impl;
      ASSERT_TRUE(storage::StorageImpl::Open(so, std::move(storage_env_), &impl).ok());
      storage_ = std::move(impl);
    } else {
      ASSERT_TRUE(storage::Storage::Open(so, &storage_).ok());
    }
  }
  void Close() {
    storage_.reset();
    rollups_.reset();
  }
  SeriesId Series(const std::string& host) {
    storage::TagRef tag{"host", host};
    SeriesId id = 0;
    EXPECT_TRUE(storage_->ResolveSeries("cpu", &tag, 1, &id).ok());
    return id;
  }
  void Put(SeriesId id, Timestamp t, Value v) {
    storage::SeriesPoint p{id, t, v};
    ASSERT_TRUE(storage_->Append(&p, 1).ok());
  }
  // Every hour of [from, to) of id agrees with the raw points, or is raw.
  void ExpectConsistent(SeriesId id, Timestamp from, Timestamp to, int* rolled) {
    auto c = rollups_->NewCursor(id, from, to);
    for (Timestamp h = from; h < to; h += kHourMs) {
      HourStats got;
      const HourState st = c->Get(h, &got);
      const HourStats want = RawHour(storage_.get(), id, h);
      if (st == HourState::kRaw) continue;
      ++*rolled;
      if (st == HourState::kEmpty) {
        EXPECT_TRUE(want.empty()) << "hour " << (h - kT0) / kHourMs;
      } else {
        EXPECT_TRUE(got.SameAs(want)) << "hour " << (h - kT0) / kHourMs << " count "
                                      << got.count << " vs " << want.count;
      }
    }
  }
  HourState StateOf(SeriesId id, Timestamp hour, HourStats* out = nullptr) {
    HourStats tmp;
    return rollups_->NewCursor(id, hour, hour + kHourMs)->Get(hour, out ? out : &tmp);
  }

  std::string dir_;
  Env* env_ = nullptr;  // rollup file I/O; null = POSIX
  storage::StorageOptions storage_options_;
  std::unique_ptr<Env> storage_env_;  // the engine's, for one Open; null = POSIX
  size_t max_dirty_pairs_ = 65536;
  Timestamp batch_ms_ = kHourMs;
  std::atomic<int64_t> now_{kT0 + 5 * kHourMs};
  std::unique_ptr<RollupStore> rollups_;
  std::unique_ptr<storage::Storage> storage_;
};

void Fill(Fixture* f, SeriesId a, SeriesId b) {
  for (Timestamp t = kT0; t < kT0 + 5 * kHourMs; t += 60000) {
    f->Put(a, t, Value::Int(t / 60000 % 97));
    f->Put(b, t + 7, Value::Float(static_cast<double>(t % 1000003) / 100));
  }
}

TEST(RollupStore, BuildsClosedHoursFromRawPoints) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 4 * kHourMs);  // 10 min grace
  HourStats h;
  ASSERT_EQ(f.StateOf(a, kT0, &h), HourState::kRolled);
  EXPECT_EQ(h.count, 60u);
  EXPECT_EQ(f.StateOf(a, kT0 + 4 * kHourMs), HourState::kRaw);  // not closed yet
  int rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  f.ExpectConsistent(b, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 8);
  // An hour without points is known to be empty.
  const SeriesId c = f.Series("c");
  f.Put(c, kT0 + 2 * kHourMs, Value::Int(1));
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.StateOf(c, kT0 + kHourMs), HourState::kEmpty);
  EXPECT_EQ(f.StateOf(c, kT0 + 2 * kHourMs), HourState::kRolled);
}

// With 6-hour batches, new hours are rolled up four times a day (each build
// rewrites the day file and STATE): the hours of the batch being filled
// stay raw until the batch ended grace_ms ago, then all of them are built
// at once. Late points below the watermark are rebuilt at the next pass,
// batch or not.
TEST(RollupStore, NewHoursAreBuiltInBatches) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.batch_ms_ = 6 * kHourMs;
  f.now_ = kT0 + 5 * kHourMs;
  f.Open();
  const SeriesId a = f.Series("a");
  for (Timestamp t = kT0; t < kT0 + 14 * kHourMs; t += 60000) f.Put(a, t, Value::Int(t / 60000 % 89));
  f.Put(a, kT0 + 20 * kHourMs + 5, Value::Int(7));
  const std::string day_file = dir.path() + "/rollup/" + DayFileName(kT0);
  auto build_at = [&](Timestamp now) {
    f.now_ = now;
    ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  };
  build_at(kT0 + 6 * kHourMs + 9 * 60000);  // hour 5 closed, but not its batch's grace
  EXPECT_EQ(f.rollups_->stats().watermark, kT0);
  EXPECT_FALSE(std::filesystem::exists(day_file));
  EXPECT_EQ(f.StateOf(a, kT0), HourState::kRaw);
  build_at(kT0 + 6 * kHourMs + 10 * 60000);
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 6 * kHourMs);
  EXPECT_EQ(f.rollups_->stats().files_written, 1u);
  HourStats h;
  ASSERT_EQ(f.StateOf(a, kT0 + 5 * kHourMs, &h), HourState::kRolled);
  EXPECT_EQ(h.count, 60u);
  EXPECT_EQ(f.StateOf(a, kT0 + 6 * kHourMs), HourState::kRaw);
  for (Timestamp now = kT0 + 7 * kHourMs; now < kT0 + 12 * kHourMs + 10 * 60000; now += 30 * 60000) {
    build_at(now);
  }
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 6 * kHourMs);
  EXPECT_EQ(f.rollups_->stats().files_written, 1u);
  // A late point in a built hour does not wait for the batch.
  f.Put(a, kT0 + 2 * kHourMs + 30, Value::Int(1000));
  EXPECT_EQ(f.StateOf(a, kT0 + 2 * kHourMs), HourState::kRaw);
  build_at(kT0 + 12 * kHourMs + 9 * 60000);
  EXPECT_EQ(f.rollups_->stats().files_written, 2u);
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 6 * kHourMs);
  ASSERT_EQ(f.StateOf(a, kT0 + 2 * kHourMs, &h), HourState::kRolled);
  EXPECT_EQ(h.count, 61u);
  build_at(kT0 + 12 * kHourMs + 10 * 60000);
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 12 * kHourMs);
  EXPECT_EQ(f.rollups_->stats().files_written, 3u);
  // A pass that finds two closed batches builds them with one write: here
  // the day's last two, after midnight, with their empty hours.
  build_at(kT0 + 24 * kHourMs + 10 * 60000);
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 24 * kHourMs);
  EXPECT_EQ(f.rollups_->stats().files_written, 4u);
  ASSERT_EQ(f.StateOf(a, kT0 + 20 * kHourMs, &h), HourState::kRolled);
  EXPECT_EQ(h.count, 1u);
  EXPECT_EQ(f.StateOf(a, kT0 + 19 * kHourMs), HourState::kEmpty);
  int rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 24 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 24);
}

// A pass over closed hours that hold no points writes no day file (an
// empty one would cost a fresh server's disk a write, two fsyncs and a
// rename); such hours are answered from raw data, and the day gets its
// file once an hour with points is built.
TEST(RollupStore, HoursWithoutPointsWriteNoDayFile) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a");
  f.Put(a, kT0 + 4 * kHourMs + 60000, Value::Int(3));  // in the open hour only
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 4 * kHourMs);
  const std::string day_file = dir.path() + "/rollup/" + DayFileName(kT0);
  EXPECT_FALSE(std::filesystem::exists(day_file));
  EXPECT_EQ(f.rollups_->stats().files_written, 0u);
  EXPECT_EQ(f.StateOf(a, kT0 + 3 * kHourMs), HourState::kRaw);
  // Nor a STATE: a skip over nothing is computed again after a restart.
  const std::string state = dir.path() + "/rollup/STATE";
  EXPECT_FALSE(std::filesystem::exists(state));
  f.Close();
  f.Open();
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 4 * kHourMs);
  EXPECT_FALSE(std::filesystem::exists(state));
  f.now_ += kHourMs;
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_TRUE(std::filesystem::exists(day_file));
  EXPECT_TRUE(std::filesystem::exists(state));
  HourStats h;
  ASSERT_EQ(f.StateOf(a, kT0 + 4 * kHourMs, &h), HourState::kRolled);
  EXPECT_EQ(h.count, 1u);
  EXPECT_EQ(f.StateOf(a, kT0 + 3 * kHourMs), HourState::kEmpty);
  // A restart finds the day as it was.
  f.Close();
  f.Open();
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.StateOf(a, kT0 + 4 * kHourMs), HourState::kRolled);
}

TEST(RollupStore, LatePointsMakeTheirHourRawUntilRebuilt) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  HourStats before;
  ASSERT_EQ(f.StateOf(a, kT0 + kHourMs, &before), HourState::kRolled);
  f.Put(a, kT0 + kHourMs + 30, Value::Int(1000));       // new timestamp
  f.Put(a, kT0 + kHourMs + 60000, Value::Float(-2.5));  // overwrites a point
  EXPECT_EQ(f.StateOf(a, kT0 + kHourMs), HourState::kRaw);
  EXPECT_EQ(f.StateOf(b, kT0 + kHourMs), HourState::kRolled);
  EXPECT_GE(f.rollups_->stats().dirty_pending, 1u);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  HourStats after;
  ASSERT_EQ(f.StateOf(a, kT0 + kHourMs, &after), HourState::kRolled);
  EXPECT_EQ(after.count, before.count + 1);
  EXPECT_FALSE(after.integral);
  EXPECT_EQ(f.rollups_->stats().dirty_pending, 0u);
  int rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 4);
  // The same hour again after its rebuild: marked again.
  f.Put(a, kT0 + kHourMs + 31, Value::Int(7));
  EXPECT_EQ(f.StateOf(a, kT0 + kHourMs), HourState::kRaw);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 4);
}

// A day file names series ids: it is written only once the series it
// names are durable. With wal.sync at an interval, a new series whose late
// point reaches a built hour is fsynced (its WAL record) before the day
// file is rewritten, not at the next interval.
TEST(RollupStore, ADayFileNamesNoSeriesAPowerCutCouldLose) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.storage_options_.wal_sync = storage::WalSyncMode::kInterval;
  f.storage_options_.wal_sync_interval_ms = 3600 * 1000;
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  env->SetFilter("/wal/");
  auto* wal_env = env.get();
  f.storage_env_ = std::move(env);
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  const SeriesId c = f.Series("c");
  f.Put(c, kT0 + kHourMs + 5, Value::Int(3));  // late: its hour is built
  ASSERT_EQ(f.StateOf(c, kT0 + kHourMs), HourState::kRaw);
  const uint64_t syncs = wal_env->syncs();
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  ASSERT_EQ(f.StateOf(c, kT0 + kHourMs), HourState::kRolled);
  EXPECT_EQ(wal_env->syncs(), syncs + 1);
  f.Put(a, kT0 + kHourMs + 5, Value::Int(4));  // late, no new series
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  ASSERT_EQ(f.StateOf(a, kT0 + kHourMs), HourState::kRolled);
  EXPECT_EQ(wal_env->syncs(), syncs + 1);
}

TEST(RollupStore, ManyLateHoursCollapseIntoDays) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.now_ = kT0 + 3 * kDayMs;
  f.max_dirty_pairs_ = 100;
  f.Open();
  const SeriesId a = f.Series("a");
  f.Put(a, kT0, Value::Int(1));
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  // 48 late hours of 40 series: more marks than a small store keeps.
  std::vector<SeriesId> ids;
  for (int i = 0; i < 40; ++i) ids.push_back(f.Series("s" + std::to_string(i)));
  for (Timestamp t = kT0; t < kT0 + 2 * kDayMs; t += 600000) {
    for (SeriesId id : ids) f.Put(id, t, Value::Float(static_cast<double>(t % 977) / 10));
  }
  // Marks beyond 100 pairs collapse into the two whole days.
  EXPECT_LE(f.rollups_->stats().dirty_pending, 2u + 100u);
  EXPECT_GE(f.rollups_->stats().late_marks, 100u);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.rollups_->stats().dirty_pending, 0u);
  int rolled = 0;
  for (SeriesId id : ids) f.ExpectConsistent(id, kT0, kT0 + 2 * kDayMs, &rolled);
  EXPECT_EQ(rolled, 48 * 40);
}

TEST(RollupStore, RestartKeepsRollupsConsistent) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  f.Put(b, kT0 + 30, Value::Int(5));  // late, not rebuilt before the restart
  f.Close();
  f.Open();
  EXPECT_EQ(f.rollups_->stats().watermark, kT0 + 4 * kHourMs);
  EXPECT_EQ(f.StateOf(b, kT0), HourState::kRaw);  // still dirty
  int rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  rolled = 0;
  f.ExpectConsistent(b, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 4);
}

TEST(RollupStore, DirtyMarksSurviveWithoutACleanClose) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  f.Put(a, kT0 + 3 * kHourMs + 1, Value::Int(9));
  ASSERT_TRUE(f.rollups_->SyncLate().ok());
  // A second store opened on the same files sees the mark, as a restart
  // after a crash would (the first one never closed).
  RollupOptions ro;
  ro.dir = dir.path() + "/rollup";
  std::unique_ptr<RollupStore> other;
  ASSERT_TRUE(RollupStore::Open(ro, &other).ok());
  EXPECT_EQ(other->stats().dirty_pending, 1u);
  HourStats h;
  EXPECT_EQ(other->NewCursor(a, kT0 + 3 * kHourMs, kT0 + 4 * kHourMs)->Get(kT0 + 3 * kHourMs, &h),
            HourState::kRaw);
}

TEST(RollupStore, MissingOrDamagedDayFilesAreRebuilt) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  const std::string file = dir.path() + "/rollup/" + DayFileName(kT0);
  f.Close();
  ASSERT_EQ(std::remove(file.c_str()), 0);
  f.Open();
  EXPECT_EQ(f.StateOf(a, kT0), HourState::kRaw);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.StateOf(a, kT0), HourState::kRolled);
  f.Close();
  {
    std::fstream io(file, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(40);
    io.write("\xff\xff\xff\xff", 4);
  }
  f.Open();
  EXPECT_EQ(f.StateOf(a, kT0), HourState::kRaw);  // never a damaged record
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  int rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  f.ExpectConsistent(b, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 8);
}

TEST(RollupStore, BuildsAcrossDaysAndCatchesUp) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.now_ = kT0 + 3 * kDayMs;
  f.Open();
  const SeriesId a = f.Series("a");
  for (Timestamp t = kT0 + 20 * kHourMs; t < kT0 + 2 * kDayMs + 5 * kHourMs; t += 600000) {
    f.Put(a, t, Value::Int(t % 1000));
  }
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.rollups_->stats().watermark, HourOf(f.now_ - 10 * 60000));
  int rolled = 0;
  f.ExpectConsistent(a, kT0, kT0 + 3 * kDayMs, &rolled);
  EXPECT_EQ(rolled, 72 - 1);  // every hour but the last one is rolled up
}

TEST(RollupStore, BackgroundThreadBuildsAndStops) {
  testing::TempDir dir;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  f.rollups_->Start(f.storage_.get());
  for (int i = 0; i < 500 && f.rollups_->stats().passes == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  f.rollups_->Stop();
  EXPECT_GE(f.rollups_->stats().passes, 1u);
  EXPECT_EQ(f.StateOf(a, kT0), HourState::kRolled);
}

// Rollup files go through the Env: write errors, a full disk and torn
// writes while building fail the pass (BuildNow returns the error; the
// builder thread counts it in stats().errors and retries), leave the
// previous files and marks in force (no answer from a half-written file,
// no raw point lost), and the next pass after the fault rebuilds.
TEST(RollupStore, WriteFaultsFailThePassAndTheNextOneRebuilds) {
  for (int mode = 0; mode < 3; ++mode) {
    testing::TempDir dir;
    sundial::testing::FaultInjectionEnv fault(NewPosixEnv());
    fault.SetFilter("/rollup/");
    Fixture f(dir.path());
    f.env_ = &fault;
    f.Open();
    const SeriesId a = f.Series("a"), b = f.Series("b");
    Fill(&f, a, b);
    if (mode == 0) fault.SetFailWrites(true);
    if (mode >= 1) fault.SetSpace(mode == 1 ? 0 : 100);
    fault.SetTornWrites(mode == 2);
    EXPECT_FALSE(f.rollups_->BuildNow(f.storage_.get()).ok()) << mode;
    EXPECT_GT(fault.failed_writes(), 0u) << mode;
    EXPECT_EQ(f.StateOf(a, kT0), HourState::kRaw) << mode;  // nothing half-built is used
    int rolled = 0;
    f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
    EXPECT_EQ(rolled, 0) << mode;
    EXPECT_EQ(RawHour(f.storage_.get(), a, kT0).count, 60u) << mode;  // raw points kept
    fault.SetFailWrites(false);
    fault.SetSpace(-1);
    ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok()) << mode;
    f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
    f.ExpectConsistent(b, kT0, kT0 + 5 * kHourMs, &rolled);
    EXPECT_EQ(rolled, 8) << mode;
    // And after a restart, from the files.
    f.Close();
    f.Open();
    rolled = 0;
    f.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
    EXPECT_EQ(rolled, 4) << mode;
  }
}

// A copy of a data dir taken while its engine is open is what a kill -9
// leaves: the WAL since the last checkpoint is replayed on the next start.
std::string CrashImage(const std::string& from, const std::string& to) {
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
  return to;
}

uint64_t PagesRead(Fixture* f) { return f->storage_->stats().pages_read; }

TEST(RollupStore, RestartAfterAKillReadsNothingAlreadyRolledUp) {
  testing::TempDir dir, img;
  Fixture f(dir.path());
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());
  EXPECT_EQ(f.rollups_->stats().hours_built, 8u);
  Fixture g(CrashImage(dir.path(), img.path() + "/d"));
  g.Open();
  const uint64_t replay_reads = PagesRead(&g);
  ASSERT_TRUE(g.rollups_->BuildNow(g.storage_.get()).ok());
  EXPECT_EQ(g.rollups_->stats().hours_built, 0u);
  EXPECT_EQ(g.rollups_->stats().dirty_pending, 0u);
  EXPECT_EQ(PagesRead(&g), replay_reads);  // the builder read no page
  int rolled = 0;
  g.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  g.ExpectConsistent(b, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 8);
  // Points written after the restart are the ones read: a late one makes
  // its hour, and only it, built again.
  g.Put(a, kT0 + kHourMs + 5, Value::Int(1000));
  ASSERT_TRUE(g.rollups_->BuildNow(g.storage_.get()).ok());
  EXPECT_EQ(g.rollups_->stats().hours_built, 1u);
  rolled = 0;
  g.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 4);
}

TEST(RollupStore, KillBetweenTheDayFileAndStateLosesOrDoublesNoHour) {
  testing::TempDir dir, img;
  Fixture f(dir.path());
  f.now_ = kT0 + 3 * kHourMs;
  f.Open();
  const SeriesId a = f.Series("a"), b = f.Series("b");
  Fill(&f, a, b);
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());  // hours 0 and 1
  ASSERT_EQ(f.rollups_->stats().watermark, kT0 + 2 * kHourMs);
  std::string old_state;
  {
    std::ifstream in(dir.path() + "/rollup/STATE", std::ios::binary);
    old_state.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  f.now_ = kT0 + 5 * kHourMs;
  ASSERT_TRUE(f.rollups_->BuildNow(f.storage_.get()).ok());  // hours 2 and 3
  // The image of a kill after the day file was renamed, before STATE.
  CrashImage(dir.path(), img.path() + "/d");
  {
    std::ofstream out(img.path() + "/d/rollup/STATE", std::ios::binary | std::ios::trunc);
    out << old_state;
  }
  Fixture g(img.path() + "/d");
  g.now_ = f.now_.load();
  g.Open();
  EXPECT_EQ(g.rollups_->stats().watermark, kT0 + 2 * kHourMs);
  ASSERT_TRUE(g.rollups_->BuildNow(g.storage_.get()).ok());
  // Hours 2 and 3 again, nothing older: the replay reported no point.
  EXPECT_EQ(g.rollups_->stats().hours_built, 4u);
  int rolled = 0;
  g.ExpectConsistent(a, kT0, kT0 + 5 * kHourMs, &rolled);
  g.ExpectConsistent(b, kT0, kT0 + 5 * kHourMs, &rolled);
  EXPECT_EQ(rolled, 8);
}

TEST(RollupStore, ReadsAVersion1State) {
  testing::TempDir dir;
  ASSERT_TRUE(std::filesystem::create_directories(dir.path() + "/rollup"));
  std::string state;
  PutFixed32(&state, 1);
  PutFixed64(&state, static_cast<uint64_t>(kT0 + 3 * kHourMs));
  PutFixed32(&state, crc32c::Mask(crc32c::Value(state.data(), state.size())));
  {
    std::ofstream out(dir.path() + "/rollup/STATE", std::ios::binary);
    out << state;
  }
  RollupOptions ro;
  ro.dir = dir.path() + "/rollup";
  std::unique_ptr<RollupStore> r;
  ASSERT_TRUE(RollupStore::Open(ro, &r).ok());
  EXPECT_EQ(r->stats().watermark, kT0 + 3 * kHourMs);
  EXPECT_EQ(r->wal_seen(), 0u);  // every replayed late point is reported
}

}  // namespace
}  // namespace sundial::rollup
