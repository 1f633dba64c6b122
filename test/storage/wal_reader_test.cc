#include "sundial/storage/wal_reader.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "storage/record_log.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"
#include "storage/wal.h"
#include "storage/wal_reader_impl.h"

namespace sundial::storage {
namespace {

class FixedRetention : public WalRetention {
 public:
  uint64_t OldestWalSegmentNeeded() const override { return needed.load(); }
  std::atomic<uint64_t> needed{kNoWalSegmentNeeded};
};

struct Engine {
  explicit Engine(const std::string& dir, WalRetention* retention = nullptr) {
    StorageOptions o;
    o.data_dir = dir;
    o.wal_sync = WalSyncMode::kNone;
    o.wal_segment_bytes = 64 * 1024;
    o.checkpoint_interval_ms = 0;
    o.wal_retention = retention;
    EXPECT_TRUE(StorageImpl::Open(o, NewPosixEnv(), &db, /*start_maintenance=*/false).ok());
    const TagRef tag{"host", "a"};
    EXPECT_TRUE(db->ResolveSeries("m", &tag, 1, &id).ok());
  }
  // Appends points t = from..from+n-1 (value = t) in batches of 10.
  void Append(Timestamp from, int n) {
    std::vector<SeriesPoint> batch;
    for (int i = 0; i < n; ++i) {
      batch.push_back({id, from + i, Value::Int(from + i)});
      if (batch.size() == 10 || i == n - 1) {
        ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
        batch.clear();
      }
    }
  }
  std::unique_ptr<StorageImpl> db;
  SeriesId id = 0;
};

std::vector<Timestamp> ReadAll(WalReader* r) {
  std::vector<Timestamp> out;
  std::vector<SeriesPoint> pts;
  while (r->Next(&pts)) {
    for (const SeriesPoint& p : pts) out.push_back(p.t);
    pts.clear();
  }
  return out;
}

std::vector<Timestamp> Range(Timestamp from, int n) {
  std::vector<Timestamp> v;
  for (int i = 0; i < n; ++i) v.push_back(from + i);
  return v;
}

TEST(WalReader, TailsAppendsInOrderAcrossCheckpoints) {
  testing::TempDir dir;
  Engine e(dir.path());
  std::unique_ptr<WalReader> r;
  ASSERT_TRUE(e.db->NewWalReader(WalPosition{1, 0}, &r).ok());
  EXPECT_TRUE(ReadAll(r.get()).empty());
  e.Append(0, 25);
  EXPECT_EQ(ReadAll(r.get()), Range(0, 25));
  const WalPosition mid = r->position();
  ASSERT_TRUE(e.db->TEST_Checkpoint().ok());  // rotates: the reader moves on
  e.Append(25, 25);
  EXPECT_EQ(ReadAll(r.get()), Range(25, 25));
  EXPECT_EQ(r->position(), r->End());
  EXPECT_LT(mid, r->position());
  // Seek back: the first segment was removed (no retention), so the reader
  // says so and continues with what exists.
  r->Seek(WalPosition{1, 0});
  EXPECT_EQ(ReadAll(r.get()), Range(25, 25));
  EXPECT_FALSE(r->TakeWarnings().empty());
}

TEST(WalReader, RetentionKeepsSegmentsThroughCheckpointsAndRestart) {
  testing::TempDir dir;
  FixedRetention keep;
  keep.needed = 1;
  {
    Engine e(dir.path(), &keep);
    e.Append(0, 30);
    ASSERT_TRUE(e.db->TEST_Checkpoint().ok());
    e.Append(30, 30);
    ASSERT_TRUE(e.db->TEST_Checkpoint().ok());
    e.Append(60, 30);
  }  // clean shutdown: removes what nobody needs
  Engine e(dir.path(), &keep);
  std::unique_ptr<WalReader> r;
  ASSERT_TRUE(e.db->NewWalReader(WalPosition{1, 0}, &r).ok());
  EXPECT_EQ(ReadAll(r.get()), Range(0, 90));
  EXPECT_TRUE(r->TakeWarnings().empty());
  std::vector<WalSegmentInfo> segs;
  ASSERT_TRUE(r->Segments(&segs).ok());
  ASSERT_FALSE(segs.empty());
  EXPECT_EQ(segs.front().segment, 1u);
  // Once nothing is needed, the next checkpoint removes the old segments.
  keep.needed = kNoWalSegmentNeeded;
  ASSERT_TRUE(e.db->TEST_Checkpoint().ok());
  ASSERT_TRUE(r->Segments(&segs).ok());
  EXPECT_GT(segs.front().segment, 1u);
}

TEST(WalReader, SkipsRecordTypesItDoesNotKnow) {
  testing::TempDir dir;
  std::unique_ptr<Env> env = NewPosixEnv();
  Wal wal(env.get(), dir.path(), 1 << 20);
  std::vector<std::string> warnings;
  uint64_t corrupt = 0;
  Status open_error;
  ASSERT_TRUE(wal.Recover([](uint8_t, std::string_view) {}, &warnings, &corrupt, &open_error).ok());
  std::string rec;
  const SeriesPoint a{1, 10, Value::Int(1)}, b{1, 20, Value::Float(2.5)};
  uint64_t lsn = 0;
  EncodeWalBatch(&a, 1, &rec);
  ASSERT_TRUE(wal.Append(rec, &lsn).ok());
  rec.clear();
  AppendLogRecord(&rec, 9, "a range delete, say");  // a type this reader does not know
  ASSERT_TRUE(wal.Append(rec, &lsn).ok());
  EncodeWalBatch(&b, 1, &rec);
  ASSERT_TRUE(wal.Append(rec, &lsn).ok());
  WalReaderImpl r(&wal, WalPosition{1, 0});
  std::vector<SeriesPoint> pts;
  ASSERT_TRUE(r.Next(&pts));
  ASSERT_TRUE(r.Next(&pts));
  EXPECT_FALSE(r.Next(&pts));
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].t, 10);
  EXPECT_EQ(pts[1].t, 20);
  EXPECT_EQ(pts[1].v.float_value(), 2.5);
  EXPECT_EQ(r.position(), wal.End());
}

TEST(WalReader, DamageIsSkippedAndReported) {
  testing::TempDir dir;
  std::unique_ptr<Env> env = NewPosixEnv();
  Wal wal(env.get(), dir.path(), 1 << 20);
  std::vector<std::string> warnings;
  uint64_t corrupt = 0;
  Status open_error;
  ASSERT_TRUE(wal.Recover([](uint8_t, std::string_view) {}, &warnings, &corrupt, &open_error).ok());
  std::string rec;
  uint64_t lsn = 0;
  for (Timestamp t = 0; t < 3; ++t) {
    const SeriesPoint p{1, t, Value::Int(t)};
    EncodeWalBatch(&p, 1, &rec);
    ASSERT_TRUE(wal.Append(rec, &lsn).ok());
  }
  // Flip a payload byte of the middle record.
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->OpenFile(dir.path() + "/" + WalSegmentName(1), &f).ok());
  const uint64_t middle = kLogFileHeaderSize + rec.size() + kLogRecordHeaderSize + 1;
  ASSERT_TRUE(f->Write(middle, "\x7f", 1).ok());
  WalReaderImpl r(&wal, WalPosition{1, 0});
  std::vector<SeriesPoint> pts;
  while (r.Next(&pts)) {
  }
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_EQ(pts[0].t, 0);
  EXPECT_EQ(pts[1].t, 2);
  EXPECT_FALSE(r.TakeWarnings().empty());
}

}  // namespace
}  // namespace sundial::storage
