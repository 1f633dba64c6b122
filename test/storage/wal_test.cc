#include "storage/wal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "storage/record_log.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

TEST(Wal, BatchCodecRoundTrips) {
  std::vector<SeriesPoint> in = {
      {0, 0, Value::Int(0)},
      {7, -5, Value::Int(std::numeric_limits<int64_t>::min())},
      {kInvalidSeriesId - 1, std::numeric_limits<int64_t>::max() / 2, Value::Float(-0.0)},
      {3, 1700000000000, Value::Float(std::nan(""))},
      {3, 1700000000000, Value::Int(std::numeric_limits<int64_t>::max())},
  };
  std::string rec;
  EncodeWalBatch(in.data(), in.size(), &rec);
  std::vector<SeriesPoint> out;
  ASSERT_TRUE(DecodeWalBatch(std::string_view(rec).substr(kLogRecordHeaderSize),
                             [&](const SeriesPoint& p) { out.push_back(p); }));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].series, in[i].series);
    EXPECT_EQ(out[i].t, in[i].t);
    EXPECT_TRUE(out[i].v.BitEquals(in[i].v)) << i;
  }
  // Truncated payloads are rejected, never overread.
  for (size_t cut = 0; cut + kLogRecordHeaderSize < rec.size(); ++cut) {
    EXPECT_FALSE(DecodeWalBatch(std::string_view(rec).substr(kLogRecordHeaderSize, cut),
                                [](const SeriesPoint&) {}));
  }
}

TEST(Wal, RecoverReplaysCheckpointThenNewerSegments) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string wal_dir = dir.path() + "/wal";
  auto batch = [](Timestamp t) {
    SeriesPoint p{1, t, Value::Int(t)};
    std::string rec;
    EncodeWalBatch(&p, 1, &rec);
    return rec;
  };
  {
    Wal wal(env.get(), wal_dir, 1 << 20);
    std::vector<std::string> w;
    uint64_t corrupt = 0;
    ASSERT_TRUE(wal.Recover([](uint8_t, std::string_view) {}, &w, &corrupt).ok());
    uint64_t lsn;
    ASSERT_TRUE(wal.Append(batch(1), &lsn).ok());
    ASSERT_TRUE(wal.Append(batch(2), &lsn).ok());
    uint64_t seq;
    ASSERT_TRUE(wal.Rotate(&seq).ok());
    ASSERT_TRUE(wal.Append(batch(3), &lsn).ok());
    std::unique_ptr<Wal::CheckpointWriter> ck;
    ASSERT_TRUE(wal.NewCheckpoint(seq, &ck).ok());
    ASSERT_TRUE(ck->Add(batch(100)).ok());
    ASSERT_TRUE(ck->Finish().ok());
    ASSERT_TRUE(wal.Append(batch(4), &lsn).ok());
    ASSERT_TRUE(wal.SyncTo(lsn).ok());
  }
  Wal wal(env.get(), wal_dir, 1 << 20);
  std::vector<Timestamp> seen;
  std::vector<std::string> w;
  uint64_t corrupt = 0;
  ASSERT_TRUE(wal.Recover(
                     [&](uint8_t, std::string_view payload) {
                       DecodeWalBatch(payload, [&](const SeriesPoint& p) { seen.push_back(p.t); });
                     },
                     &w, &corrupt)
                  .ok());
  EXPECT_EQ(seen, (std::vector<Timestamp>{100, 3, 4}));  // 1 and 2 were checkpointed
  EXPECT_TRUE(w.empty());
  EXPECT_EQ(corrupt, 0u);
  ASSERT_TRUE(wal.Reset().ok());
  std::vector<std::string> names;
  ASSERT_TRUE(env->ListDir(wal_dir, &names).ok());
  EXPECT_EQ(names.size(), 1u);  // one empty segment
}

}  // namespace
}  // namespace sundial::storage
