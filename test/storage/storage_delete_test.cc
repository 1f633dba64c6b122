// Range deletes (storage_delete.cc): points removed from head pages,
// pending pages, page files and cold files; points written after a delete
// staying; deletes surviving restarts and crashes (a snapshot is a crash
// image); compaction dropping deleted points for good; emptied series
// hidden; and a randomised differential test against a plain model.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "storage/storage_impl.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

namespace fs = std::filesystem;
using testing::ReadAll;
using testing::TempDir;

constexpr Timestamp kHour = 3600 * 1000;

std::vector<Timestamp> Times(const std::vector<Sample>& pts) {
  std::vector<Timestamp> out;
  for (const Sample& p : pts) out.push_back(p.t);
  return out;
}

uint64_t TreeBytes(const std::string& dir) {
  uint64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

class Delete : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = testing::SmallOptions(dir_.path());
    options_.partition_duration_ms = kHour;
    Open(dir_.path());
  }
  void TearDown() override { db_.reset(); }
  void Open(const std::string& dir) {
    db_.reset();
    options_.data_dir = dir;
    ASSERT_TRUE(StorageImpl::Open(options_, NewPosixEnv(), &db_).ok());
    TagRef tags[] = {{"host", "a"}};
    ASSERT_TRUE(db_->ResolveSeries("m", tags, 1, &a_).ok());
    tags[0].value = "b";
    ASSERT_TRUE(db_->ResolveSeries("m", tags, 1, &b_).ok());
  }
  // Opens the engine on a crash image of the current one: a snapshot.
  void OpenCrashImage() {
    SnapshotInfo info;
    ASSERT_TRUE(db_->Snapshot("", {}, &info).ok());
    crash_dirs_.push_back(std::make_unique<TempDir>());  // the source may be the last one
    const std::string copy = crash_dirs_.back()->path() + "/data";
    fs::copy(info.path, copy, fs::copy_options::recursive);
    Open(copy);
  }
  void Put(SeriesId id, Timestamp t, int64_t v) {
    SeriesPoint p{id, t, Value::Int(v)};
    ASSERT_TRUE(db_->Append(&p, 1).ok());
  }
  // 360 points, 10 s apart, from t0_.
  void Fill(SeriesId id) {
    for (int i = 0; i < 360; ++i) Put(id, t0_ + i * 10000, i);
  }
  Status Del(SeriesId id, Timestamp start, Timestamp end, bool hide = false) {
    return db_->DeleteRange({id}, start, end, hide, nullptr);
  }
  // Times of Fill() outside [start, end].
  std::vector<Timestamp> Expected(Timestamp start, Timestamp end) const {
    std::vector<Timestamp> out;
    for (int i = 0; i < 360; ++i) {
      const Timestamp t = t0_ + i * 10000;
      if (t < start || t > end) out.push_back(t);
    }
    return out;
  }

  TempDir dir_;
  std::vector<std::unique_ptr<TempDir>> crash_dirs_;
  StorageOptions options_;
  std::unique_ptr<StorageImpl> db_;  // closed before the directories go
  SeriesId a_ = 0, b_ = 0;
  const Timestamp t0_ = 10 * kHour;
};

TEST_F(Delete, FromHeadPages) {
  Fill(a_);
  Fill(b_);
  const Timestamp s = t0_ + 1000000, e = t0_ + 2000000;
  ASSERT_TRUE(Del(a_, s, e).ok());
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  EXPECT_EQ(ReadAll(db_.get(), b_).size(), 360u);  // other series untouched
  // The newest point deleted: LastPoint finds the one before.
  ASSERT_TRUE(Del(a_, t0_ + 3000000, kMaxTimestamp - 1).ok());
  Sample last;
  ASSERT_TRUE(db_->LastPoint(a_, &last).ok());
  EXPECT_EQ(last.t, t0_ + 2990000);
  EXPECT_EQ(db_->removals(), 2u);  // the bucket cache's signal
}

TEST_F(Delete, FromSealedPagesAndAfterRestart) {
  Fill(a_);
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  const Timestamp s = t0_ + 500000, e = t0_ + 2500000;
  ASSERT_TRUE(Del(a_, s, e).ok());
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  Open(dir_.path());  // clean shutdown: the tombstones go into the checkpoint
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  ASSERT_TRUE(db_->TEST_Checkpoint().ok());
  OpenCrashImage();  // recovery from the checkpoint's deletion state
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
}

TEST_F(Delete, ReplayedFromTheWalAfterACrash) {
  Fill(a_);
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  Put(a_, t0_ + 3595000, 7);  // in memory only
  const Timestamp s = t0_ + 100000, e = t0_ + 3596000;
  ASSERT_TRUE(Del(a_, s, e).ok());
  Put(a_, t0_ + 200000, 99);  // after the delete: stays
  OpenCrashImage();
  std::vector<Timestamp> want = Expected(s, e);
  want.insert(want.begin() + 10, t0_ + 200000);
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), want);
}

TEST_F(Delete, PointsWrittenAfterADeleteStayEverywhere) {
  Fill(a_);
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  const Timestamp s = t0_, e = t0_ + kHour - 1;
  ASSERT_TRUE(Del(a_, s, e).ok());
  EXPECT_TRUE(ReadAll(db_.get(), a_).empty());
  for (int i = 0; i < 50; ++i) Put(a_, t0_ + i * 20000, 1000 + i);  // late, same range
  ASSERT_TRUE(db_->TEST_FlushAll().ok());  // now in the page file, past the tombstone
  EXPECT_EQ(ReadAll(db_.get(), a_).size(), 50u);
  Open(dir_.path());
  EXPECT_EQ(ReadAll(db_.get(), a_).size(), 50u);
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  const auto pts = ReadAll(db_.get(), a_);
  ASSERT_EQ(pts.size(), 50u);
  EXPECT_EQ(pts[3].v.int_value(), 1003);
}

TEST_F(Delete, FromColdFilesAndCompactionReclaims) {
  Fill(a_);
  Fill(b_);
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  const Timestamp s = t0_ + 700000, e = t0_ + 900000;
  ASSERT_TRUE(Del(a_, s, e).ok());  // a tombstone on the cold file
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  Open(dir_.path());
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  // A cold-only partition with tombstones is rewritten without the points.
  const std::string part = dir_.path() + "/part";
  ASSERT_TRUE(Del(b_, kMinTimestamp + 1, kMaxTimestamp - 1).ok());
  const uint64_t cold_before = TreeBytes(part);
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  // b's block is gone (regular points take a few dozen bytes in version 3
  // cold files, so headers and index are most of what remains).
  EXPECT_LT(TreeBytes(part) + 20, cold_before);
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  EXPECT_TRUE(ReadAll(db_.get(), b_).empty());
  OpenCrashImage();  // the checkpoint-less state: tombstones replayed over the new cold file
  EXPECT_EQ(Times(ReadAll(db_.get(), a_)), Expected(s, e));
  EXPECT_TRUE(ReadAll(db_.get(), b_).empty());
  Fill(b_);
  // Deleted before compaction: the cold file never holds the points.
  Fill(a_);  // a page file again, in the compacted partition
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  ASSERT_TRUE(Del(a_, kMinTimestamp + 1, kMaxTimestamp - 1).ok());
  const uint64_t before = TreeBytes(crash_dirs_.back()->path() + "/data/part");
  ASSERT_TRUE(db_->TEST_Compact(t0_ + kHour).ok());
  EXPECT_LT(TreeBytes(crash_dirs_.back()->path() + "/data/part"), before);
  EXPECT_TRUE(ReadAll(db_.get(), a_).empty());
  EXPECT_EQ(ReadAll(db_.get(), b_).size(), 360u);
  Open(crash_dirs_.back()->path() + "/data");
  EXPECT_TRUE(ReadAll(db_.get(), a_).empty());
  EXPECT_EQ(ReadAll(db_.get(), b_).size(), 360u);
}

TEST_F(Delete, PendingPagesAndOutOfOrderPages) {
  options_.page_size = 128;  // many sealed pages waiting in memory
  Open(dir_.path());
  Fill(a_);
  for (int i = 0; i < 360; i += 3) Put(a_, t0_ + i * 10000 + 5, -i);  // out of order
  const Timestamp s = t0_ + 600005, e = t0_ + 1800000;
  ASSERT_TRUE(Del(a_, s, e).ok());
  size_t late_left = 0;
  for (const Sample& p : ReadAll(db_.get(), a_)) {
    EXPECT_TRUE(p.t < s || p.t > e) << p.t;
    if (p.t % 10000 == 5) ++late_left;
  }
  EXPECT_EQ(late_left, 120u - 40u);
  ASSERT_TRUE(db_->TEST_FlushAll().ok());
  Open(dir_.path());
  for (const Sample& p : ReadAll(db_.get(), a_)) EXPECT_TRUE(p.t < s || p.t > e) << p.t;
}

TEST_F(Delete, HidesEmptiedSeriesUntilWrittenAgain) {
  Fill(a_);
  Fill(b_);
  size_t hidden = 0;
  ASSERT_TRUE(db_->DeleteRange({a_, b_}, t0_, t0_ + 1000000, true, &hidden).ok());
  EXPECT_EQ(hidden, 0u);  // both keep points
  ASSERT_TRUE(db_->DeleteRange({a_}, kMinTimestamp + 1, kMaxTimestamp - 1, true, &hidden).ok());
  EXPECT_EQ(hidden, 1u);
  EXPECT_EQ(db_->SeriesOfMetric("m"), std::vector<SeriesId>{b_});
  EXPECT_EQ(db_->SeriesWithTag("host", "a"), std::vector<SeriesId>{});
  EXPECT_EQ(db_->SeriesOfMetricWithTag("m", "host", {"a", "b"}), std::vector<SeriesId>{b_});
  Open(dir_.path());
  EXPECT_EQ(db_->SeriesOfMetric("m"), std::vector<SeriesId>{b_});
  OpenCrashImage();
  EXPECT_EQ(db_->SeriesOfMetric("m"), std::vector<SeriesId>{b_});
  Put(a_, t0_, 1);
  EXPECT_EQ(db_->SeriesOfMetric("m"), (std::vector<SeriesId>{a_, b_}));
  OpenCrashImage();  // the WAL's point shows it again after replay too
  EXPECT_EQ(db_->SeriesOfMetric("m"), (std::vector<SeriesId>{a_, b_}));
}

TEST_F(Delete, RejectsBadRanges) {
  EXPECT_FALSE(Del(a_, 10, 5).ok());
  EXPECT_TRUE(db_->DeleteRange({12345}, 0, 10, false, nullptr).ok());  // unknown: nothing
}

// Random appends (in order, late, repeated), deletes, flushes, checkpoints,
// compactions, restarts and crash images against a map per series.
TEST(DeleteDifferential, MatchesAModel) {
  std::mt19937_64 rng(testing::TestSeed(20261124));
  TempDir dir;
  StorageOptions o = testing::SmallOptions(dir.path());
  o.partition_duration_ms = kHour;
  o.page_size = 128;
  std::unique_ptr<StorageImpl> db;
  ASSERT_TRUE(StorageImpl::Open(o, NewPosixEnv(), &db).ok());
  SeriesId ids[3];
  for (int i = 0; i < 3; ++i) {
    const std::string host = "h" + std::to_string(i);
    TagRef tags[] = {{"host", host}};
    ASSERT_TRUE(db->ResolveSeries("m", tags, 1, &ids[i]).ok());
  }
  std::map<SeriesId, std::map<Timestamp, int64_t>> model;
  std::vector<std::unique_ptr<TempDir>> images;
  const Timestamp base = 100 * kHour;
  auto check = [&](int step) {
    for (SeriesId id : ids) {
      const auto got = ReadAll(db.get(), id);
      ASSERT_EQ(got.size(), model[id].size()) << "step " << step << " series " << id;
      size_t i = 0;
      for (const auto& [t, v] : model[id]) {
        ASSERT_EQ(got[i].t, t) << "step " << step;
        ASSERT_EQ(got[i].v.int_value(), v) << "step " << step;
        ++i;
      }
    }
  };
  for (int step = 0; step < 400; ++step) {
    const int op = static_cast<int>(rng() % 100);
    const SeriesId id = ids[rng() % 3];
    if (op < 70) {
      std::vector<SeriesPoint> batch;
      for (int k = 0; k < 20; ++k) {
        const Timestamp t = base + static_cast<Timestamp>(rng() % (3 * kHour / 1000)) * 1000;
        const int64_t v = static_cast<int64_t>(rng() % 1000);
        batch.push_back({id, t, Value::Int(v)});
        model[id][t] = v;
      }
      ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
    } else if (op < 82) {
      const Timestamp a = base + static_cast<Timestamp>(rng() % (3 * kHour));
      const Timestamp b = a + static_cast<Timestamp>(rng() % kHour);
      ASSERT_TRUE(db->DeleteRange({id}, a, b, false, nullptr).ok());
      auto& m = model[id];
      m.erase(m.lower_bound(a), m.upper_bound(b));
    } else if (op < 88) {
      ASSERT_TRUE(db->TEST_FlushAll().ok());
    } else if (op < 92) {
      ASSERT_TRUE(db->TEST_Checkpoint().ok());
    } else if (op < 95) {
      ASSERT_TRUE(db->TEST_Compact(base + 4 * kHour).ok());
    } else if (op < 97) {
      db.reset();
      ASSERT_TRUE(StorageImpl::Open(o, NewPosixEnv(), &db).ok());
    } else {
      SnapshotInfo info;
      ASSERT_TRUE(db->Snapshot("", {}, &info).ok());
      images.push_back(std::make_unique<TempDir>());
      const std::string copy = images.back()->path() + "/data";
      fs::copy(info.path, copy, fs::copy_options::recursive);
      db.reset();
      o.data_dir = copy;
      ASSERT_TRUE(StorageImpl::Open(o, NewPosixEnv(), &db).ok());
    }
    check(step);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace sundial::storage
