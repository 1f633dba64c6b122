// Damage and failures: a torn or corrupted WAL, a corrupted page, a
// truncated page file, a missing page index, a full disk. In every case the
// engine opens, reports what it skipped, and keeps everything else.
#include <sys/mount.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/fault_env.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"
#include "storage/wal.h"

namespace sundial::storage {
namespace {

namespace fs = std::filesystem;
using testing::ReadAll;
using testing::SmallOptions;
using testing::TempDir;

constexpr int kSeries = 4;

struct Db {
  std::unique_ptr<Storage> db;
  std::vector<SeriesId> ids;
};

// Resolves m{host=h0} .. m{host=h<kSeries-1>} into d->ids.
void ResolveAll(Db* d) {
  for (int i = 0; i < kSeries; ++i) {
    const std::string host = "h" + std::to_string(i);
    TagRef tag{"host", host};
    SeriesId id;
    EXPECT_TRUE(d->db->ResolveSeries("m", &tag, 1, &id).ok());
    d->ids.push_back(id);
  }
}

Db OpenDb(const StorageOptions& o) {
  Db d;
  Status s = Storage::Open(o, &d.db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (s.ok()) ResolveAll(&d);
  return d;
}

// OpenDb on env, with or without the maintenance thread.
Db OpenDbOn(const StorageOptions& o, std::unique_ptr<Env> env, bool maintenance,
            StorageImpl** impl_out) {
  Db d;
  std::unique_ptr<StorageImpl> impl;
  Status s = StorageImpl::Open(o, std::move(env), &impl, maintenance);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return d;
  *impl_out = impl.get();
  d.db = std::move(impl);
  ResolveAll(&d);
  return d;
}

// The value of series s at t = b s: scrambled, so that a page holds a few
// hundred points at most whatever the codec does with steady counters.
int64_t ValueAt(int64_t b, size_t s) {
  return (b * 7919 % 1009) * 10 + static_cast<int64_t>(s);
}

// Appends batches [from, to), one point per series per batch (t = b s).
void Write(Db* d, int from, int to) {
  for (int b = from; b < to; ++b) {
    std::vector<SeriesPoint> batch;
    for (size_t s = 0; s < d->ids.size(); ++s) {
      batch.push_back({d->ids[s], b * 1000, Value::Int(ValueAt(b, s))});
    }
    ASSERT_TRUE(d->db->Append(batch.data(), batch.size()).ok());
  }
}

// Copies the data dir of a live engine: what a crash would leave.
void CrashCopy(const std::string& from, const std::string& to) {
  fs::copy(from, to, fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::vector<fs::path> Files(const std::string& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file() && (e.path().extension() == ext || e.path().filename() == ext)) {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void FlipByte(const fs::path& p, uint64_t offset) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x5a);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(&c, 1);
}

// Counts points of every series that match Write()'s values; fails on a
// wrong value or a repeated timestamp.
size_t CountGood(Db* d) {
  size_t n = 0;
  for (size_t s = 0; s < d->ids.size(); ++s) {
    auto pts = ReadAll(d->db.get(), d->ids[s]);
    for (size_t i = 0; i < pts.size(); ++i) {
      EXPECT_EQ(pts[i].v.int_value(), ValueAt(pts[i].t / 1000, s));
      if (i > 0) {
        EXPECT_LT(pts[i - 1].t, pts[i].t);
      }
    }
    n += pts.size();
  }
  return n;
}

// Where the records of the WAL's current segment end (the segment is
// allocated further: zeros follow).
WalPosition WalEnd(Db* d) {
  std::unique_ptr<WalReader> r;
  EXPECT_TRUE(d->db->NewWalReader(WalPosition{}, &r).ok());
  return r->End();
}

void ZeroBytes(const fs::path& p, uint64_t offset, size_t n) {
  std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  const std::string zeros(n, '\0');
  f.write(zeros.data(), static_cast<std::streamsize>(n));
}

// Writes 300 points per series into a fresh engine on dir, copies its data
// dir to crashed as a crash would leave it, and returns where the WAL's
// records end; *segment is the copy's current WAL segment.
WalPosition WriteAndCrashCopy(const std::string& dir, const std::string& crashed,
                              fs::path* segment) {
  Db d = OpenDb(SmallOptions(dir));
  Write(&d, 0, 300);
  const WalPosition end = WalEnd(&d);
  CrashCopy(dir, crashed);
  *segment = crashed + "/wal/" + WalSegmentName(end.segment);
  return end;
}

TEST(StorageFaults, TornWalTailKeepsEverythingBefore) {
  for (const bool cut : {true, false}) {
    SCOPED_TRACE(cut ? "the file ends inside the last record"
                     : "the last record's end never reached the allocated blocks");
    TempDir dir, crashed;
    fs::path seg;
    const WalPosition end = WriteAndCrashCopy(dir.path(), crashed.path(), &seg);
    ASSERT_TRUE(fs::exists(seg));
    if (cut) {
      fs::resize_file(seg, end.offset - 5);
    } else {
      ZeroBytes(seg, end.offset - 5, 5);
    }
    Db r = OpenDb(SmallOptions(crashed.path()));
    EXPECT_EQ(CountGood(&r), 299u * kSeries);
    ASSERT_FALSE(r.db->recovery_warnings().empty());
    EXPECT_NE(r.db->recovery_warnings()[0].find(cut ? "truncated" : "bad checksum"),
              std::string::npos)
        << r.db->recovery_warnings()[0];
  }
}

TEST(StorageFaults, CorruptWalRecordLosesOnlyThatRecord) {
  TempDir dir, crashed;
  fs::path seg;
  const WalPosition end = WriteAndCrashCopy(dir.path(), crashed.path(), &seg);
  ASSERT_EQ(Files(crashed.path() + "/wal", ".wal").size(), 1u);
  FlipByte(seg, end.offset / 2);  // one batch in the middle
  Db r = OpenDb(SmallOptions(crashed.path()));
  EXPECT_EQ(CountGood(&r), 299u * kSeries);
  EXPECT_FALSE(r.db->recovery_warnings().empty());
  EXPECT_GE(r.db->stats().corruptions_skipped, 1u);
}

TEST(StorageFaults, CorruptPageIsSkippedAtRead) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  {
    Db d = OpenDb(o);
    Write(&d, 0, 2000);
  }  // clean shutdown: everything in pages
  auto pages = Files(dir.path() + "/part", "pages");
  ASSERT_EQ(pages.size(), 1u);
  FlipByte(pages[0], fs::file_size(pages[0]) / 2);
  Db r = OpenDb(o);
  const size_t good = CountGood(&r);
  EXPECT_LT(good, 2000u * kSeries);
  EXPECT_GT(good, 2000u * kSeries - 400);  // one small page lost, no more
  EXPECT_GE(r.db->stats().corruptions_skipped, 1u);
  bool noted = false;  // and it is described for the log
  for (const auto& w : r.db->recovery_warnings()) {
    noted |= w.find("page skipped") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST(StorageFaults, TruncatedPageFileKeepsTheFirstPart) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  {
    Db d = OpenDb(o);
    Write(&d, 0, 2000);
  }
  auto pages = Files(dir.path() + "/part", "pages");
  ASSERT_EQ(pages.size(), 1u);
  fs::resize_file(pages[0], fs::file_size(pages[0]) / 2);
  Db r = OpenDb(o);
  const size_t good = CountGood(&r);
  EXPECT_GT(good, 2000u * kSeries / 3);
  EXPECT_LT(good, 2000u * kSeries);
  bool noted = false;
  for (const auto& w : r.db->recovery_warnings()) noted |= w.find("truncated") != std::string::npos;
  EXPECT_TRUE(noted);
  Write(&r, 2000, 2100);  // and it still takes writes
  EXPECT_EQ(CountGood(&r), good + 100 * kSeries);
}

TEST(StorageFaults, MissingPageIndexIsRebuilt) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  {
    Db d = OpenDb(o);
    Write(&d, 0, 2000);
  }
  auto index = Files(dir.path() + "/part", "index");
  ASSERT_EQ(index.size(), 1u);
  fs::remove(index[0]);
  {
    Db r = OpenDb(o);
    EXPECT_EQ(CountGood(&r), 2000u * kSeries);
    bool noted = false;
    for (const auto& w : r.db->recovery_warnings()) noted |= w.find("rebuil") != std::string::npos;
    EXPECT_TRUE(noted);
  }
  Db again = OpenDb(o);  // the rebuilt index is used next time
  EXPECT_EQ(CountGood(&again), 2000u * kSeries);
  EXPECT_TRUE(again.db->recovery_warnings().empty());
}

// A new series is made durable by the fsync of the WAL batch that first
// uses it: series.log is not even written on the write path, only before
// a checkpoint drops the WAL. After a crash that left series.log without
// any record, replay brings back every series under its id, with its
// points.
TEST(StorageFaults, ANewSeriesIsDurableThroughTheWalAlone) {
  TempDir dir, crashed;
  auto o = SmallOptions(dir.path());
  o.wal_sync = WalSyncMode::kEveryBatch;
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  env->SetFilter("series.log");
  auto* fault = env.get();
  StorageImpl* impl = nullptr;
  Db d = OpenDbOn(o, std::move(env), false, &impl);
  ASSERT_NE(impl, nullptr);
  const uint64_t opened = fault->syncs();  // creating the empty log
  Write(&d, 0, 50);
  EXPECT_EQ(fault->syncs(), opened);
  // Not even written yet: a crash now leaves it as a power cut could.
  EXPECT_EQ(fs::file_size(dir.path() + "/series.log"), 16u);
  CrashCopy(dir.path(), crashed.path());
  {
    Db r = OpenDb(SmallOptions(crashed.path()));
    EXPECT_EQ(r.ids, d.ids);
    EXPECT_EQ(CountGood(&r), 50u * kSeries);
    for (const std::string& w : r.db->recovery_warnings()) ADD_FAILURE() << w;
  }  // a clean stop: series.log must hold them now, without the WAL
  fs::remove_all(crashed.path() + "/wal");
  Db again = OpenDb(SmallOptions(crashed.path()));
  EXPECT_EQ(again.ids, d.ids);
  EXPECT_EQ(CountGood(&again), 50u * kSeries);
  ASSERT_TRUE(impl->TEST_Checkpoint().ok());
  EXPECT_EQ(fault->syncs(), opened + 1);
  EXPECT_GT(fs::file_size(dir.path() + "/series.log"), 16u);
}

// No page reaches a page file before the WAL records of the new series it
// belongs to are fsynced (with wal.sync at an interval, the batch's own
// fsync may come later): a power cut must not leave a page of a series id
// that the restart gives to another series.
TEST(StorageFaults, PagesOfANewSeriesWaitForItsWalRecord) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  o.wal_sync = WalSyncMode::kInterval;
  o.wal_sync_interval_ms = 3600 * 1000;
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  env->SetFilter("/wal/");
  auto* fault = env.get();
  StorageImpl* impl = nullptr;
  Db d = OpenDbOn(o, std::move(env), false, &impl);
  ASSERT_NE(impl, nullptr);
  Write(&d, 0, 300);
  const uint64_t before = fault->syncs();
  ASSERT_TRUE(impl->TEST_FlushAll().ok());
  EXPECT_EQ(fault->syncs(), before + 1);
  Write(&d, 300, 600);  // no new series: pages go out with no WAL fsync
  ASSERT_TRUE(impl->TEST_FlushAll().ok());
  EXPECT_EQ(fault->syncs(), before + 1);
  EXPECT_EQ(CountGood(&d), 600u * kSeries);
}

TEST(StorageFaults, DiskFullInjectedThenSpaceReturns) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  auto env = std::make_unique<sundial::testing::FaultInjectionEnv>(NewPosixEnv());
  auto* fault = env.get();
  StorageImpl* impl = nullptr;
  Db d = OpenDbOn(o, std::move(env), true, &impl);
  ASSERT_EQ(d.ids.size(), static_cast<size_t>(kSeries));
  Write(&d, 0, 500);
  fault->SetSpace(20000);
  int acked = 500;
  Status err;
  for (int b = 500; b < 5000 && err.ok(); ++b) {
    std::vector<SeriesPoint> batch;
    for (size_t s = 0; s < d.ids.size(); ++s) {
      batch.push_back({d.ids[s], b * 1000, Value::Int(ValueAt(b, s))});
    }
    err = d.db->Append(batch.data(), batch.size());
    if (err.ok()) acked = b + 1;
  }
  ASSERT_FALSE(err.ok());
  EXPECT_TRUE(err.IsIOError()) << err.ToString();
  EXPECT_NE(err.ToString().find("No space left"), std::string::npos) << err.ToString();
  EXPECT_EQ(CountGood(&d), static_cast<size_t>(acked) * kSeries);
  // The engine keeps working while the disk is full: retries fail cleanly.
  SeriesPoint p{d.ids[0], 999999000, Value::Int(1)};
  EXPECT_FALSE(d.db->Append(&p, 1).ok());
  fault->SetSpace(-1);  // space returns
  Write(&d, acked, acked + 100);
  EXPECT_EQ(CountGood(&d), static_cast<size_t>(acked + 100) * kSeries);
  d.db.reset();
  Db r = OpenDb(o);
  EXPECT_EQ(CountGood(&r), static_cast<size_t>(acked + 100) * kSeries);
}

// The same on a real, small file system, when the test may mount one.
TEST(StorageFaults, DiskFullOnTmpfs) {
  TempDir dir;
  if (geteuid() != 0 ||
      mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=2m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here; DiskFullInjectedThenSpaceReturns covers it";
  }
  struct Unmount {
    std::string path;
    ~Unmount() { umount2(path.c_str(), MNT_DETACH); }
  } unmount{dir.path()};
  const std::string data = dir.path() + "/data";
  {
    // Ballast we delete later to give space back.
    std::ofstream ballast(dir.path() + "/ballast", std::ios::binary);
    std::string mb(1 << 20, 'x');
    ballast.write(mb.data(), static_cast<std::streamsize>(mb.size()));
  }
  auto o = SmallOptions(data);
  Db d = OpenDb(o);
  ASSERT_TRUE(d.db != nullptr);
  int acked = 0;
  Status err;
  for (int b = 0; b < 200000 && err.ok(); ++b) {
    std::vector<SeriesPoint> batch;
    for (size_t s = 0; s < d.ids.size(); ++s) {
      batch.push_back({d.ids[s], b * 1000, Value::Int(ValueAt(b, s))});
    }
    err = d.db->Append(batch.data(), batch.size());
    if (err.ok()) acked = b + 1;
  }
  ASSERT_FALSE(err.ok()) << "the 2 MiB file system never filled up";
  EXPECT_NE(err.ToString().find("No space left"), std::string::npos) << err.ToString();
  EXPECT_EQ(CountGood(&d), static_cast<size_t>(acked) * kSeries);
  fs::remove(dir.path() + "/ballast");
  Write(&d, acked, acked + 100);
  d.db.reset();
  Db r = OpenDb(o);
  EXPECT_EQ(CountGood(&r), static_cast<size_t>(acked + 100) * kSeries);
}

}  // namespace
}  // namespace sundial::storage
