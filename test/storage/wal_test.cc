#include "storage/wal.h"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "storage/record_log.h"
#include "storage/test_util.h"
#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

// Recovers wal and returns the times of the points it replayed, in order.
// Fails the test on an error, a warning or a corrupt record.
std::vector<Timestamp> RecoverTimes(Wal* wal) {
  std::vector<Timestamp> seen;
  std::vector<std::string> warnings;
  uint64_t corrupt = 0;
  Status open_error;
  EXPECT_TRUE(wal->Recover(
                     [&](uint8_t type, std::string_view payload) {
                       EXPECT_TRUE(DecodeWalPoints(
                           type, payload, [&](const SeriesPoint& p) { seen.push_back(p.t); }));
                     },
                     &warnings, &corrupt, &open_error)
                  .ok());
  EXPECT_TRUE(open_error.ok());
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(corrupt, 0u);
  return seen;
}

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
  ASSERT_TRUE(DecodeWalPoints(kWalPointsRecord, std::string_view(rec).substr(kLogRecordHeaderSize),
                             [&](const SeriesPoint& p) { out.push_back(p); }));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].series, in[i].series);
    EXPECT_EQ(out[i].t, in[i].t);
    EXPECT_TRUE(out[i].v.BitEquals(in[i].v)) << i;
  }
  // Truncated payloads are rejected, never overread.
  for (size_t cut = 0; cut + kLogRecordHeaderSize < rec.size(); ++cut) {
    EXPECT_FALSE(DecodeWalPoints(kWalPointsRecord, std::string_view(rec).substr(kLogRecordHeaderSize, cut),
                                [](const SeriesPoint&) {}));
  }
}

// Floats that are short decimals go as mantissas, bit-identical on the way
// back; anything else as raw bits.
TEST(Wal, DecimalFloatsRoundTripBitForBit) {
  const double values[] = {12.34, -0.01, 1e-9, 123456.789, 0.1 + 0.2, 1e300, -0.0, 0.0,
                           5e-324, 9007199254.740993, -42.0, 3.0e15, 0.5, 7.25e8};
  std::vector<SeriesPoint> in;
  for (double v : values) in.push_back({5, 1000, Value::Float(v)});
  in.push_back({5, 1000, Value::Float(std::numeric_limits<double>::infinity())});
  std::string rec;
  EncodeWalBatch(in.data(), in.size(), &rec);
  std::vector<SeriesPoint> out;
  ASSERT_TRUE(DecodeWalPoints(kWalPointsRecord, std::string_view(rec).substr(kLogRecordHeaderSize),
                             [&](const SeriesPoint& p) { out.push_back(p); }));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_TRUE(out[i].v.BitEquals(in[i].v)) << i;
    EXPECT_FALSE(out[i].v.is_int()) << i;
  }
  // 1000 two-decimal values take well under the 8 bytes of a raw float.
  std::vector<SeriesPoint> cents;
  for (int i = 0; i < 1000; ++i) cents.push_back({7, 1000, Value::Float((5000 + i % 97) / 100.0)});
  EncodeWalBatch(cents.data(), cents.size(), &rec);
  EXPECT_LT(rec.size(), 1000u * 5);  // raw: 10 bytes a point
}

// Series ids go as differences from the one before: a host's metrics,
// sent together with ids given out together, take a byte each however
// large the ids.
TEST(Wal, SeriesIdsGoAsDifferences) {
  std::vector<SeriesPoint> in;
  for (int host = 0; host < 10; ++host) {
    for (int metric = 0; metric < 100; ++metric) {
      in.push_back({static_cast<SeriesId>(90000 + host * 1000 + metric), 1700000000000,
                    Value::Int(metric % 50)});
    }
  }
  in.push_back({0, 1700000000000, Value::Int(1)});  // a big step down, and back
  in.push_back({kInvalidSeriesId - 1, 1700000000000, Value::Int(2)});
  std::string rec;
  EncodeWalBatch(in.data(), in.size(), &rec);
  EXPECT_EQ(static_cast<uint8_t>(rec[8]), kWalPointsRecord);
  // Id and code 1 byte, t 1, value 1; 10 hosts' first ids 2-3 bytes, the
  // first t 6.
  EXPECT_LT(rec.size(), in.size() * 3 + 60);
  std::vector<SeriesPoint> out;
  ASSERT_TRUE(DecodeWalPoints(kWalPointsRecord, std::string_view(rec).substr(kLogRecordHeaderSize),
                              [&](const SeriesPoint& p) { out.push_back(p); }));
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(out[i].series, in[i].series) << i;
    EXPECT_TRUE(out[i].v.BitEquals(in[i].v)) << i;
  }
  // An id difference that leaves the range of ids is malformed.
  std::string bad;
  PutVarint32(&bad, 2);
  PutVarint64(&bad, ZigZagEncode64(5) << 4);
  PutVarint64(&bad, 0);
  PutVarint64(&bad, 0);
  PutVarint64(&bad, ZigZagEncode64(-6) << 4);
  PutVarint64(&bad, 0);
  PutVarint64(&bad, 0);
  EXPECT_FALSE(DecodeWalPoints(kWalPointsRecord, bad, [](const SeriesPoint&) {}));
}

// Batches written before ids went as differences (record type 4) still
// decode.
TEST(Wal, VersionTwoBatchesDecode) {
  std::string payload;
  PutVarint32(&payload, 2);
  PutVarint64(&payload, (uint64_t{90123} << 4) | 0);  // int
  PutVarint64(&payload, ZigZagEncode64(1700000000000));
  PutVarint64(&payload, ZigZagEncode64(-3));
  PutVarint64(&payload, (uint64_t{7} << 4) | 4);  // 2-decimal float
  PutVarint64(&payload, ZigZagEncode64(10));
  PutVarint64(&payload, ZigZagEncode64(1234));
  std::vector<SeriesPoint> out;
  ASSERT_TRUE(DecodeWalPoints(kWalPointsRecordV2, payload,
                              [&](const SeriesPoint& p) { out.push_back(p); }));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].series, 90123u);
  EXPECT_EQ(out[0].t, 1700000000000);
  EXPECT_TRUE(out[0].v.BitEquals(Value::Int(-3)));
  EXPECT_EQ(out[1].series, 7u);
  EXPECT_EQ(out[1].t, 1700000000010);
  EXPECT_TRUE(out[1].v.BitEquals(Value::Float(12.34)));
}

// Batches written before the decimal code (record type 1) still decode.
TEST(Wal, VersionOneBatchesDecode) {
  std::string payload;
  PutVarint32(&payload, 2);
  PutVarint64(&payload, (uint64_t{9} << 1) | 1);  // series 9, float
  PutVarint64(&payload, ZigZagEncode64(1700000000000));
  PutFixed64(&payload, DoubleToBits(2.5));
  PutVarint64(&payload, uint64_t{9} << 1);  // int
  PutVarint64(&payload, ZigZagEncode64(-10));
  PutVarint64(&payload, ZigZagEncode64(-7));
  std::vector<SeriesPoint> out;
  ASSERT_TRUE(DecodeWalPoints(kWalPointsRecordV1, payload,
                              [&](const SeriesPoint& p) { out.push_back(p); }));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].series, 9u);
  EXPECT_EQ(out[0].t, 1700000000000);
  EXPECT_TRUE(out[0].v.BitEquals(Value::Float(2.5)));
  EXPECT_EQ(out[1].t, 1699999999990);
  EXPECT_TRUE(out[1].v.BitEquals(Value::Int(-7)));
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
    Status open_error;
    ASSERT_TRUE(wal.Recover([](uint8_t, std::string_view) {}, &w, &corrupt, &open_error).ok());
    ASSERT_TRUE(open_error.ok());
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
  // 1 and 2 were checkpointed.
  EXPECT_EQ(RecoverTimes(&wal), (std::vector<Timestamp>{100, 3, 4}));
  ASSERT_TRUE(wal.Reset().ok());
  std::vector<std::string> names;
  ASSERT_TRUE(env->ListDir(wal_dir, &names).ok());
  EXPECT_EQ(names.size(), 1u);  // one empty segment
}

// A record of `points` small points.
std::string Record(int points, int first) {
  std::vector<SeriesPoint> in;
  for (int i = 0; i < points; ++i) in.push_back({1, 1000 * (first + i), Value::Int(first + i)});
  std::string rec;
  EncodeWalBatch(in.data(), in.size(), &rec);
  return rec;
}

// Recovers a WAL directory that holds nothing yet.
void OpenEmpty(Wal* wal) {
  std::vector<std::string> w;
  uint64_t corrupt = 0;
  Status open_error;
  ASSERT_TRUE(wal->Recover([](uint8_t, std::string_view) {}, &w, &corrupt, &open_error).ok());
  ASSERT_TRUE(open_error.ok());
}

// The path of the one segment in wal_dir ("" if none).
std::string OnlySegment(const std::string& wal_dir) {
  std::string segment;
  DIR* d = opendir(wal_dir.c_str());
  if (d == nullptr) return segment;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.size() > 4 && name.substr(name.size() - 4) == ".wal") segment = wal_dir + "/" + name;
  }
  closedir(d);
  return segment;
}

// A segment is allocated ahead of its records (File::Preallocate), so that
// an fsync writes the appended bytes only and an append never moves the
// end of the file; a rotation gives the rest back; recovery reads the
// records and passes over the zeros after them without a warning.
TEST(Wal, SegmentIsAllocatedAheadOfItsRecords) {
  testing::TempDir dir;
  {
    // Where the file system cannot allocate ahead, there is nothing to see.
    const std::string probe = dir.path() + "/probe";
    const int fd = open(probe.c_str(), O_CREAT | O_WRONLY, 0644);
    ASSERT_GE(fd, 0);
    const bool can = fallocate(fd, 0, 0, 1 << 20) == 0;
    close(fd);
    unlink(probe.c_str());
    if (!can) GTEST_SKIP() << "no fallocate here";
  }
  auto env = NewPosixEnv();
  const std::string wal_dir = dir.path() + "/wal";
  Wal wal(env.get(), wal_dir, 1 << 20);
  OpenEmpty(&wal);
  uint64_t lsn = 0;
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(wal.Append(Record(1, i), &lsn).ok());
  ASSERT_TRUE(wal.SyncTo(lsn).ok());
  const std::string segment = OnlySegment(wal_dir);
  ASSERT_FALSE(segment.empty());
  uint64_t seq = 0, end = 0;
  wal.Position(&seq, &end);
  EXPECT_LT(end, 4096u);  // 100 small records and the header
  struct stat st;
  ASSERT_EQ(stat(segment.c_str(), &st), 0);
  EXPECT_GE(static_cast<uint64_t>(st.st_size), uint64_t{256} << 10);
  EXPECT_GE(static_cast<uint64_t>(st.st_blocks) * 512, uint64_t{256} << 10);
  {
    // What a restart after a crash sees: the records, then zeros.
    Wal again(env.get(), wal_dir, 1 << 20);
    EXPECT_EQ(RecoverTimes(&again).size(), 100u);
  }
  // A closed segment keeps only its records and their blocks: it ends at
  // the end of its last block (cut inside it, ext4 would write it again),
  // and a restart reads it without a warning.
  ASSERT_TRUE(wal.Rotate(&seq).ok());
  ASSERT_EQ(stat(segment.c_str(), &st), 0);
  EXPECT_EQ(static_cast<uint64_t>(st.st_size), uint64_t{4096});
  EXPECT_LT(static_cast<uint64_t>(st.st_blocks) * 512, uint64_t{64} << 10);
  Wal again(env.get(), wal_dir, 1 << 20);
  EXPECT_EQ(RecoverTimes(&again).size(), 100u);
}

// A power cut after a segment was created and allocated ahead but before
// its first fsync can leave it all zeros, header included: nothing in it
// was acknowledged, so recovery reports nothing.
TEST(Wal, ASegmentNeverSyncedReadsAsEmpty) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string wal_dir = dir.path() + "/wal";
  uint64_t seq = 0;
  {
    Wal wal(env.get(), wal_dir, 1 << 20);
    OpenEmpty(&wal);
    uint64_t lsn = 0;
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(wal.Append(Record(1, i), &lsn).ok());
    ASSERT_TRUE(wal.Rotate(&seq).ok());
    ASSERT_TRUE(wal.Append(Record(1, 99), &lsn).ok());  // never synced
  }
  std::vector<std::string> segments;
  for (const auto& e : std::filesystem::directory_iterator(wal_dir)) {
    if (e.path().extension() == ".wal") segments.push_back(e.path().string());
  }
  ASSERT_EQ(segments.size(), 2u);
  const std::string path = *std::max_element(segments.begin(), segments.end());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  const std::string zeros(std::max<size_t>(st.st_size, 64 << 10), '\0');
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->OpenFile(path, &f).ok());
  ASSERT_TRUE(f->Write(0, zeros.data(), zeros.size()).ok());
  f.reset();
  Wal again(env.get(), wal_dir, 1 << 20);
  EXPECT_EQ(RecoverTimes(&again), (std::vector<Timestamp>{0, 1000, 2000}));
}

// After an fsync the block the WAL ends in is on disk: a record of at most
// a block that would straddle two starts at the next block instead, so the
// next fsync writes one block. Records appended between fsyncs are packed.
TEST(Wal, ARecordAfterAnFsyncDoesNotStraddleTwoBlocks) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  const std::string wal_dir = dir.path() + "/wal";
  Wal wal(env.get(), wal_dir, 1 << 20);
  OpenEmpty(&wal);
  uint64_t seq = 0, end = 0, lsn = 0;
  int points = 0, gaps = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string rec = Record(150 + i * 7, points);  // 1-2 KB
    points += 150 + i * 7;
    uint64_t before = 0;
    wal.Position(&seq, &before);
    ASSERT_TRUE(wal.Append(rec, &lsn).ok());
    ASSERT_TRUE(wal.SyncTo(lsn).ok());
    wal.Position(&seq, &end);
    const uint64_t start = end - rec.size();
    EXPECT_EQ(start / 4096, (end - 1) / 4096) << "record " << i << " straddles";
    if (start != before) {
      EXPECT_EQ(start % 4096, 0u);
      ++gaps;
    }
  }
  EXPECT_GT(gaps, 5);
  // Without fsyncs in between, each record follows the one before.
  uint64_t packed = 0;
  for (int i = 0; i < 40; ++i) {
    const std::string rec = Record(150 + i * 7, points);
    points += 150 + i * 7;
    uint64_t before = 0;
    wal.Position(&seq, &before);
    ASSERT_TRUE(wal.Append(rec, &lsn).ok());
    wal.Position(&seq, &end);
    packed += end - before == rec.size() ? 1 : 0;
  }
  EXPECT_GE(packed, 39u);  // the first may follow the last fsync
  Wal again(env.get(), wal_dir, 1 << 20);
  const std::vector<Timestamp> times = RecoverTimes(&again);
  ASSERT_EQ(times.size(), static_cast<size_t>(points));
  for (int i = 0; i < points; ++i) ASSERT_EQ(times[i], Timestamp{1000} * i);
}

}  // namespace
}  // namespace sundial::storage
