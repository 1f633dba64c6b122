// Online snapshots (storage_snapshot.cc): which files are linked and which
// copied, that a snapshot opens to exactly the points appended before it
// (also while another thread appends), names, listing and removal, and
// that an unfinished snapshot is removed at the next open, and that the
// files of SnapshotSources (the meta store's meta.log) are in it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "storage/storage_impl.h"
#include "sundial/storage/meta_store.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

namespace fs = std::filesystem;
using testing::ReadAll;
using testing::TempDir;

constexpr Timestamp kHour = 3600 * 1000;

ino_t Inode(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

class Snapshots : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = testing::SmallOptions(dir_.path());
    options_.partition_duration_ms = kHour;
    db_ = OpenAt(dir_.path());
  }
  std::unique_ptr<StorageImpl> OpenAt(const std::string& dir) {
    StorageOptions o = options_;
    o.data_dir = dir;
    std::unique_ptr<StorageImpl> db;
    EXPECT_TRUE(StorageImpl::Open(o, NewPosixEnv(), &db).ok());
    TagRef tags[] = {{"host", "a"}};
    EXPECT_TRUE(db->ResolveSeries("m", tags, 1, &a_).ok());
    return db;
  }
  void Put(Timestamp t) {
    SeriesPoint p{a_, t, Value::Int(t / 1000)};
    ASSERT_TRUE(db_->Append(&p, 1).ok());
  }

  TempDir dir_;
  StorageOptions options_;
  std::unique_ptr<StorageImpl> db_;
  SeriesId a_ = 0;
};

TEST_F(Snapshots, LinksImmutableFilesCopiesTheRest) {
  for (int i = 0; i < 2000; ++i) Put(i * 5000);  // about three partitions
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  ASSERT_TRUE(db_->TEST_Compact(kHour).ok());  // the first one goes cold
  ASSERT_TRUE(db_->TEST_Checkpoint().ok());    // a checkpoint and a closed segment
  for (int i = 2000; i < 2100; ++i) Put(i * 5000);
  SnapshotInfo info;
  ASSERT_TRUE(db_->Snapshot("", {}, &info).ok());
  for (int i = 2100; i < 2200; ++i) Put(i * 5000);  // after: not in the snapshot
  const std::string snap = info.path;
  EXPECT_EQ(snap, dir_.path() + "/snapshots/" + info.name);
  const std::string cold = "/part/0_" + std::to_string(kHour) + "/cold";
  ASSERT_TRUE(fs::exists(dir_.path() + cold));
  EXPECT_EQ(Inode(snap + cold), Inode(dir_.path() + cold));  // linked
  size_t ckpts = 0;
  for (const auto& e : fs::directory_iterator(snap + "/wal")) {
    const std::string name = e.path().filename().string();
    const std::string orig = dir_.path() + "/wal/" + name;
    if (name.size() > 5 && name.substr(name.size() - 5) == ".ckpt") {
      ++ckpts;
      EXPECT_EQ(Inode(e.path().string()), Inode(orig)) << name;
    }
    EXPECT_EQ(name.find(".snaplink"), std::string::npos);  // temporary links are gone
  }
  EXPECT_EQ(ckpts, 1u);
  EXPECT_NE(Inode(snap + "/series.log"), Inode(dir_.path() + "/series.log"));  // copied
  EXPECT_FALSE(fs::exists(snap + "/sundiald.lock"));
  EXPECT_FALSE(fs::exists(snap + "/snapshots"));
  EXPECT_GT(info.files_linked, 0u);
  EXPECT_GT(info.files_copied, 0u);
  EXPECT_GT(info.bytes, 0u);

  auto copy = OpenAt(snap);
  const auto pts = ReadAll(copy.get(), a_);
  ASSERT_EQ(pts.size(), 2100u);
  EXPECT_EQ(pts.back().t, 2099 * 5000);
  EXPECT_EQ(ReadAll(db_.get(), a_).size(), 2200u);  // the original keeps going
  // The engine ignores snapshots/: disk stats are the partitions' only.
  EXPECT_LT(db_->stats().disk_bytes, info.bytes + 1000000);
}

TEST_F(Snapshots, ConsistentWhileAnotherThreadAppends) {
  // Batch k holds times k*100 .. k*100+99: a snapshot holds batches 0..n-1.
  std::atomic<bool> stop{false};
  std::atomic<int> acked{0};
  std::thread writer([&] {
    for (int k = 0; k < 100000 && !stop.load(); ++k) {
      std::vector<SeriesPoint> batch;
      for (int i = 0; i < 100; ++i) batch.push_back({a_, Timestamp{k} * 100 + i, Value::Int(k)});
      if (!db_->Append(batch.data(), batch.size()).ok()) return;
      acked.store(k + 1);
    }
  });
  while (acked.load() < 200) std::this_thread::yield();
  const int before = acked.load();
  SnapshotInfo info;
  ASSERT_TRUE(db_->Snapshot("", {}, &info).ok());
  const int after = acked.load();
  stop.store(true);
  writer.join();
  std::printf("appends paused %lld us; %d batches acknowledged during the snapshot\n",
              static_cast<long long>(info.pause_us), after - before);
  auto copy = OpenAt(info.path);
  const auto pts = ReadAll(copy.get(), a_);
  ASSERT_EQ(pts.size() % 100, 0u);
  const int n = static_cast<int>(pts.size() / 100);
  EXPECT_GE(n, before);
  EXPECT_LE(n, after + 1);
  for (size_t i = 0; i < pts.size(); ++i) ASSERT_EQ(pts[i].t, static_cast<Timestamp>(i));
}

TEST_F(Snapshots, ListRemoveAndNames) {
  Put(1000);
  SnapshotInfo one, two;
  ASSERT_TRUE(db_->Snapshot("", {}, &one).ok());
  ASSERT_TRUE(db_->Snapshot("", {}, &two).ok());
  EXPECT_NE(one.name, two.name);
  EXPECT_EQ(db_->Snapshot(one.name, {}, &two).code(), Status::Code::kBusy);
  EXPECT_TRUE(db_->Snapshot("../x", {}, &two).IsInvalidArgument());
  EXPECT_TRUE(db_->Snapshot("a/b", {}, &two).IsInvalidArgument());
  const auto list = db_->ListSnapshots();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].name, one.name);
  EXPECT_GT(list[0].created_ms, 0);
  EXPECT_LE(std::llabs(list[0].created_ms - one.created_ms), 1);
  EXPECT_TRUE(db_->RemoveSnapshot("nosuch").IsNotFound());
  EXPECT_TRUE(db_->RemoveSnapshot("..").IsInvalidArgument());
  ASSERT_TRUE(db_->RemoveSnapshot(one.name).ok());
  EXPECT_EQ(db_->ListSnapshots().size(), 1u);
  EXPECT_FALSE(fs::exists(one.path));

  EXPECT_EQ(SnapshotName(0), "19700101T000000.000Z");
  EXPECT_EQ(SnapshotName(1795560615873), "20261124T225015.873Z");
  EXPECT_EQ(SnapshotNameTime("20261124T225015.873Z"), 1795560615873);
  EXPECT_EQ(SnapshotNameTime("20261124T225015.873Z-2"), 1795560615873);
  EXPECT_EQ(SnapshotNameTime("2026112"), 0);
  EXPECT_EQ(SnapshotNameTime("20261324T225015.873Z"), 0);
  EXPECT_TRUE(ValidSnapshotName("20261124T225015.873Z-1"));
  EXPECT_FALSE(ValidSnapshotName("x.partial"));
  EXPECT_FALSE(ValidSnapshotName(""));
  EXPECT_FALSE(ValidSnapshotName("a b"));
}

TEST_F(Snapshots, CountIsLimited) {
  options_.max_snapshots = 2;
  db_.reset();
  db_ = OpenAt(dir_.path());
  Put(1000);
  SnapshotInfo one, two, three;
  ASSERT_TRUE(db_->Snapshot("", {}, &one).ok());
  ASSERT_TRUE(db_->Snapshot("", {}, &two).ok());
  const Status full = db_->Snapshot("", {}, &three);
  EXPECT_EQ(full.code(), Status::Code::kResourceExhausted) << full.ToString();
  EXPECT_NE(full.ToString().find("max_snapshots = 2"), std::string::npos) << full.ToString();
  EXPECT_EQ(db_->ListSnapshots().size(), 2u);
  // An unfinished one does not count; a removed one frees its place.
  fs::create_directories(dir_.path() + "/snapshots/x.partial");
  ASSERT_TRUE(db_->RemoveSnapshot(one.name).ok());
  EXPECT_TRUE(db_->Snapshot("", {}, &three).ok());

  options_.max_snapshots = 0;
  db_.reset();
  db_ = OpenAt(dir_.path());
  EXPECT_EQ(db_->Snapshot("", {}, &three).code(), Status::Code::kResourceExhausted);
}

TEST_F(Snapshots, HoldsTheMetaStoreAsOfTheSnapshot) {
  std::unique_ptr<Env> env = NewPosixEnv();
  std::unique_ptr<MetaStore> meta;
  std::vector<std::string> warnings;
  ASSERT_TRUE(MetaStore::Open(env.get(), dir_.path(), &meta, &warnings).ok());
  ASSERT_TRUE(meta->Put("a", "1").ok());
  ASSERT_TRUE(meta->Put("b", "2").ok());
  ASSERT_TRUE(meta->Put("a", "3").ok());  // a dead record in the live file
  ASSERT_TRUE(meta->Delete("b").ok());
  ASSERT_TRUE(meta->Put("c", std::string(5000, 'x')).ok());
  Put(1000);
  SnapshotInfo info;
  ASSERT_TRUE(db_->Snapshot("", {meta.get()}, &info).ok());
  ASSERT_TRUE(meta->Put("d", "after").ok());  // not in the snapshot
  EXPECT_GT(info.bytes_copied, 5000u);
  const std::string copied = info.path + "/" + std::string(MetaStore::kFileName);
  ASSERT_TRUE(fs::exists(copied));
  EXPECT_NE(Inode(copied), Inode(dir_.path() + "/" + std::string(MetaStore::kFileName)));

  std::unique_ptr<MetaStore> restored;
  warnings.clear();
  ASSERT_TRUE(MetaStore::Open(env.get(), info.path, &restored, &warnings).ok());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(restored->dead_records(), 0u);
  EXPECT_EQ(restored->TEST_rewrites(), 0u);  // a clean file: nothing to repair
  const auto all = restored->Prefix("");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], std::make_pair(std::string("a"), std::string("3")));
  EXPECT_EQ(all[1].first, "c");
  EXPECT_EQ(all[1].second.size(), 5000u);
}

// A source with a name that is not one path component is refused before
// anything is written.
class BadSource final : public SnapshotSource {
 public:
  std::string SnapshotFileName() const override { return "../meta.log"; }
  Status CaptureSnapshot(std::string* contents) override {
    contents->clear();
    return Status::OK();
  }
};

class FailingSource final : public SnapshotSource {
 public:
  std::string SnapshotFileName() const override { return "meta.log"; }
  Status CaptureSnapshot(std::string*) override { return Status::IOError("meta.log", "boom"); }
};

TEST_F(Snapshots, SourceErrorsFailTheSnapshotAndLeaveNothing) {
  Put(1000);
  BadSource bad;
  FailingSource failing;
  SnapshotInfo info;
  EXPECT_TRUE(db_->Snapshot("", {&bad}, &info).IsInvalidArgument());
  const Status s = db_->Snapshot("", {&failing}, &info);
  EXPECT_EQ(s.code(), Status::Code::kIOError) << s.ToString();
  EXPECT_NE(s.ToString().find("boom"), std::string::npos) << s.ToString();
  EXPECT_TRUE(db_->ListSnapshots().empty());
  EXPECT_TRUE(fs::is_empty(dir_.path() + "/snapshots"));
}

TEST_F(Snapshots, UnfinishedOnesAreRemovedAtOpen) {
  Put(1000);
  const std::string partial = dir_.path() + "/snapshots/20260101T000000.000Z.partial";
  fs::create_directories(partial + "/wal");
  { std::ofstream(partial + "/wal/x") << "half"; }
  db_.reset();
  db_ = OpenAt(dir_.path());
  EXPECT_FALSE(fs::exists(partial));
  EXPECT_TRUE(db_->ListSnapshots().empty());
  EXPECT_EQ(ReadAll(db_.get(), a_).size(), 1u);
}

}  // namespace
}  // namespace sundial::storage
