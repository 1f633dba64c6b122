#include "storage/storage_impl.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "storage/test_util.h"

namespace sundial::storage {
namespace {

using testing::ReadAll;
using testing::SmallOptions;
using testing::TempDir;


SeriesId Resolve(Storage* db, const std::string& metric, const std::string& host) {
  TagRef tags[] = {{"host", host}, {"dc", "eu"}};
  SeriesId id = kInvalidSeriesId;
  EXPECT_TRUE(db->ResolveSeries(metric, tags, 2, &id).ok());
  return id;
}

std::unique_ptr<Storage> OpenDb(const StorageOptions& o) {
  std::unique_ptr<Storage> db;
  Status s = Storage::Open(o, &db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return db;
}

TEST(StorageImpl, ResolveIsStableAndOrderInsensitive) {
  TempDir dir;
  auto db = OpenDb(SmallOptions(dir.path()));
  TagRef ab[] = {{"a", "1"}, {"b", "2"}};
  TagRef ba[] = {{"b", "2"}, {"a", "1"}};
  SeriesId x, y, z;
  ASSERT_TRUE(db->ResolveSeries("m", ab, 2, &x).ok());
  ASSERT_TRUE(db->ResolveSeries("m", ba, 2, &y).ok());
  ASSERT_TRUE(db->ResolveSeries("m", ab, 1, &z).ok());
  EXPECT_EQ(x, y);
  EXPECT_NE(x, z);
  SeriesKey key;
  ASSERT_TRUE(db->GetSeriesKey(x, &key).ok());
  EXPECT_EQ(key.metric, "m");
  ASSERT_EQ(key.tags.size(), 2u);
  EXPECT_EQ(key.tags[0].first, "a");
  EXPECT_EQ(key.tags[1].second, "2");
  EXPECT_EQ(db->SeriesOfMetric("m"), (std::vector<SeriesId>{x, z}));
  EXPECT_EQ(db->SeriesWithTag("b", "2"), (std::vector<SeriesId>{x}));
  EXPECT_TRUE(db->SeriesWithTag("b", "3").empty());
  uint32_t uid = 0;
  EXPECT_TRUE(db->LookupUid(NameKind::kTagKey, "b", &uid).ok());
  EXPECT_EQ(uid, 2u);
  EXPECT_TRUE(db->LookupUid(NameKind::kMetric, "nope", &uid).IsNotFound());
  db.reset();
  db = OpenDb(SmallOptions(dir.path()));
  SeriesId again;
  ASSERT_TRUE(db->ResolveSeries("m", ba, 2, &again).ok());
  EXPECT_EQ(again, x);
  EXPECT_EQ(db->SuggestNames(NameKind::kTagKey, "", 0), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(db->stats().series_count, 2u);
}

TEST(StorageImpl, AppendAndReadInOrderAcrossManyPages) {
  TempDir dir;
  auto db = OpenDb(SmallOptions(dir.path()));
  const SeriesId id = Resolve(db.get(), "cpu", "a");
  // Scrambled values: a steady ramp would fit in very few pages.
  auto value = [](int i) { return (i * 7919 % 1009) * 0.25; };
  std::vector<SeriesPoint> batch;
  for (int i = 0; i < 20000; ++i) {
    batch.push_back({id, 1000000 + i * 1000, Value::Float(value(i))});
    if (batch.size() == 500) {
      ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
      batch.clear();
    }
  }
  auto* impl = static_cast<StorageImpl*>(db.get());
  auto check = [&] {
    auto pts = ReadAll(db.get(), id);
    ASSERT_EQ(pts.size(), 20000u);
    for (int i = 0; i < 20000; ++i) {
      ASSERT_EQ(pts[i].t, 1000000 + i * 1000);
      ASSERT_EQ(pts[i].v.float_value(), value(i));
    }
    auto range = ReadAll(db.get(), id, 1000000 + 5000 * 1000, 1000000 + 5009 * 1000);
    ASSERT_EQ(range.size(), 10u);
    EXPECT_EQ(range[0].t, 1000000 + 5000 * 1000);
  };
  check();
  ASSERT_TRUE(impl->TEST_FlushAll().ok());
  EXPECT_GT(db->stats().pages_written, 10u);
  check();
  Sample last;
  ASSERT_TRUE(db->LastPoint(id, &last).ok());
  EXPECT_EQ(last.t, 1000000 + 19999 * 1000);
  db.reset();
  db = OpenDb(SmallOptions(dir.path()));
  check();
}

TEST(StorageImpl, OutOfOrderAndDuplicatesLastWriteWins) {
  const uint64_t seed = testing::TestSeed(std::random_device{}());
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto o = SmallOptions(dir.path());
  o.partition_duration_ms = 3600 * 1000;
  auto db = OpenDb(o);
  auto* impl = static_cast<StorageImpl*>(db.get());
  const SeriesId id = Resolve(db.get(), "temp", "x");
  std::map<Timestamp, int64_t> expect;
  for (int round = 0; round < 30; ++round) {
    std::vector<SeriesPoint> batch;
    for (int i = 0; i < 300; ++i) {
      const Timestamp t = static_cast<Timestamp>(rng() % 4000) * 1000 * 3;  // ~3 partitions
      const int64_t v = static_cast<int64_t>(rng() % 1000);
      batch.push_back({id, t, Value::Int(v)});
      expect[t] = v;
    }
    ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
    if (round % 7 == 3) {
      ASSERT_TRUE(impl->TEST_FlushAll().ok());
    }
    if (round % 11 == 5) {
      ASSERT_TRUE(impl->TEST_Checkpoint().ok());
    }
  }
  auto verify = [&](Storage* d) {
    auto pts = ReadAll(d, id);
    ASSERT_EQ(pts.size(), expect.size());
    size_t i = 0;
    for (const auto& [t, v] : expect) {
      ASSERT_EQ(pts[i].t, t) << i;
      ASSERT_EQ(pts[i].v.int_value(), v) << "t=" << t;
      ++i;
    }
  };
  verify(db.get());
  EXPECT_GT(db->stats().out_of_order_points, 0u);
  db.reset();
  db = OpenDb(o);
  verify(db.get());
}

TEST(StorageImpl, CleanShutdownLeavesEmptyWalAndSeveralPartitionsSurvive) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  o.partition_duration_ms = 60 * 1000;
  auto db = OpenDb(o);
  std::vector<SeriesId> ids;
  for (int s = 0; s < 5; ++s) ids.push_back(Resolve(db.get(), "m", "h" + std::to_string(s)));
  std::vector<SeriesPoint> batch;
  for (int i = 0; i < 600; ++i) {
    for (SeriesId id : ids) batch.push_back({id, i * 1000, Value::Int(i * 10 + id)});
  }
  ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
  db.reset();
  size_t parts = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path() + "/part")) {
    (void)e;
    ++parts;
  }
  EXPECT_EQ(parts, 10u);  // 600 s in 60 s partitions
  uint64_t wal_bytes = 0;
  int checkpoints = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path() + "/wal")) {
    if (e.path().extension() == ".wal") wal_bytes += std::filesystem::file_size(e.path());
    if (e.path().extension() == ".ckpt") {
      ++checkpoints;  // the page files' marks only: 10 partitions, no points
      EXPECT_LT(std::filesystem::file_size(e.path()), 16u + 11u + 10u * 8u);
    }
  }
  EXPECT_LE(wal_bytes, 16u);  // one empty segment: its header only
  EXPECT_LE(checkpoints, 1);
  db = OpenDb(o);
  EXPECT_TRUE(db->recovery_warnings().empty());
  for (SeriesId id : ids) {
    auto pts = ReadAll(db.get(), id);
    ASSERT_EQ(pts.size(), 600u);
    for (int i = 0; i < 600; ++i) ASSERT_EQ(pts[i].v.int_value(), i * 10 + id);
  }
}

TEST(StorageImpl, ConcurrentAppendersAndReaders) {
  TempDir dir;
  auto db = OpenDb(SmallOptions(dir.path()));
  std::vector<SeriesId> ids;
  for (int s = 0; s < 50; ++s) ids.push_back(Resolve(db.get(), "m", std::to_string(s)));
  auto writer = [&](int part) {
    std::vector<SeriesPoint> batch;
    for (int i = 0; i < 2000; ++i) {
      for (size_t s = part; s < ids.size(); s += 2) batch.push_back({ids[s], i * 10, Value::Int(i)});
      if (batch.size() > 400) {
        EXPECT_TRUE(db->Append(batch.data(), batch.size()).ok());
        batch.clear();
      }
    }
    EXPECT_TRUE(db->Append(batch.data(), batch.size()).ok());
  };
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) {
      auto pts = ReadAll(db.get(), ids[3]);
      for (size_t i = 1; i < pts.size(); ++i) ASSERT_LT(pts[i - 1].t, pts[i].t);
    }
  });
  std::thread w0(writer, 0), w1(writer, 1);
  w0.join();
  w1.join();
  done = true;
  reader.join();
  for (SeriesId id : ids) ASSERT_EQ(ReadAll(db.get(), id).size(), 2000u);
  EXPECT_EQ(db->stats().points_appended, 100000u);
}

TEST(StorageImpl, RejectsUnknownSeriesAllOrNothing) {
  TempDir dir;
  auto db = OpenDb(SmallOptions(dir.path()));
  const SeriesId id = Resolve(db.get(), "m", "a");
  SeriesPoint pts[] = {{id, 1, Value::Int(1)}, {id + 100, 2, Value::Int(2)}};
  EXPECT_TRUE(db->Append(pts, 2).IsInvalidArgument());
  EXPECT_TRUE(ReadAll(db.get(), id).empty());
  Sample s;
  EXPECT_TRUE(db->LastPoint(id, &s).IsNotFound());
}

TEST(StorageImpl, CheckpointTruncatesWalAndRecoveryKeepsEverything) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  auto db = OpenDb(o);
  auto* impl = static_cast<StorageImpl*>(db.get());
  const SeriesId id = Resolve(db.get(), "m", "a");
  for (int i = 0; i < 3000; ++i) {
    SeriesPoint p{id, i * 1000, Value::Int(i)};
    ASSERT_TRUE(db->Append(&p, 1).ok());
    if (i == 1500) {
      ASSERT_TRUE(impl->TEST_Checkpoint().ok());
    }
  }
  int segments = 0, checkpoints = 0;
  for (auto& e : std::filesystem::directory_iterator(dir.path() + "/wal")) {
    const std::string ext = e.path().extension();
    segments += ext == ".wal";
    checkpoints += ext == ".ckpt";
  }
  EXPECT_EQ(checkpoints, 1);
  EXPECT_EQ(segments, 1);
  // Simulate a crash: copy the data dir while the engine is still open.
  TempDir copy;
  std::filesystem::copy(dir.path(), copy.path(),
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::overwrite_existing);
  db.reset();
  o.data_dir = copy.path();
  db = OpenDb(o);
  auto pts = ReadAll(db.get(), id);
  ASSERT_EQ(pts.size(), 3000u);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(pts[i].v.int_value(), i);
}

}  // namespace
}  // namespace sundial::storage

namespace sundial::storage {
namespace {

// Pages written after the last checkpoint hold points the WAL replays
// again; recovery cuts them off first, so nothing is stored twice (a
// second copy would arrive as an out-of-order point).
TEST(StorageImpl, CrashReplayStoresEachPointOnce) {
  TempDir dir;
  auto o = SmallOptions(dir.path());
  auto db = OpenDb(o);
  auto* impl = static_cast<StorageImpl*>(db.get());
  std::vector<SeriesId> ids;
  for (int s = 0; s < 3; ++s) ids.push_back(Resolve(db.get(), "m", "h" + std::to_string(s)));
  auto value = [](SeriesId id, int i) { return Value::Int((i * 7919 + id * 31) % 1000); };
  for (int i = 0; i < 3000; ++i) {
    for (SeriesId id : ids) {
      SeriesPoint p{id, i * 1000, value(id, i)};
      ASSERT_TRUE(db->Append(&p, 1).ok());
    }
    if (i == 1000) {
      ASSERT_TRUE(impl->TEST_Checkpoint().ok());
    }
  }
  ASSERT_TRUE(impl->TEST_FlushAll().ok());  // pages after the checkpoint, synced
  EXPECT_GT(db->stats().pages_written, 6u);
  TempDir copy;
  std::filesystem::copy(dir.path(), copy.path(),
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::overwrite_existing);
  db.reset();
  o.data_dir = copy.path();
  for (int round = 0; round < 2; ++round) {  // and again after a second crash
    db = OpenDb(o);
    EXPECT_EQ(db->stats().out_of_order_points, 0u);
    EXPECT_TRUE(db->recovery_warnings().empty());
    for (SeriesId id : ids) {
      auto pts = ReadAll(db.get(), id);
      ASSERT_EQ(pts.size(), 3000u);
      for (int i = 0; i < 3000; ++i) ASSERT_EQ(pts[i].v.int_value(), value(id, i).int_value());
    }
    ASSERT_TRUE(static_cast<StorageImpl*>(db.get())->TEST_FlushAll().ok());
    TempDir again;
    std::filesystem::copy(copy.path(), again.path(),
                          std::filesystem::copy_options::recursive |
                              std::filesystem::copy_options::overwrite_existing);
    db.reset();
    std::filesystem::remove_all(copy.path());
    std::filesystem::copy(again.path(), copy.path(), std::filesystem::copy_options::recursive);
  }
}

TEST(StorageImpl, IdleSeriesOfAnEndedPartitionAreSealed) {
  testing::TempDir dir;
  auto o = testing::SmallOptions(dir.path());
  o.partition_duration_ms = 3600 * 1000;
  auto db = OpenDb(o);
  auto* impl = static_cast<StorageImpl*>(db.get());
  const SeriesId old_id = Resolve(db.get(), "m", "old");
  const SeriesId new_id = Resolve(db.get(), "m", "new");
  const Timestamp now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  SeriesPoint pts[] = {{old_id, now - 5 * 3600 * 1000, Value::Int(1)},
                       {new_id, now, Value::Int(2)}};
  ASSERT_TRUE(db->Append(pts, 2).ok());
  impl->TEST_SealIdle();
  // The series of the partition that ended is sealed; today's stays open.
  EXPECT_EQ(db->stats().pages_sealed, 1u);
  EXPECT_EQ(testing::ReadAll(db.get(), old_id).size(), 1u);
  EXPECT_EQ(testing::ReadAll(db.get(), new_id).size(), 1u);
}

TEST(StorageImpl, RetentionDropsWholeOldPartitions) {
  testing::TempDir dir;
  auto o = testing::SmallOptions(dir.path());
  o.partition_duration_ms = 3600 * 1000;
  o.retention_ms = 3 * 3600 * 1000;
  auto db = OpenDb(o);
  auto* impl = static_cast<StorageImpl*>(db.get());
  const SeriesId id = Resolve(db.get(), "m", "a");
  // Data in the far future relative to now would not do: use times around now.
  const Timestamp now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  for (int h = 10; h >= 0; --h) {
    SeriesPoint p{id, now - h * 3600 * 1000, Value::Int(h)};
    ASSERT_TRUE(db->Append(&p, 1).ok());
  }
  ASSERT_TRUE(impl->TEST_FlushAll().ok());
  EXPECT_GE(impl->TEST_ApplyRetention(), 7u);
  auto pts = testing::ReadAll(db.get(), id);
  ASSERT_FALSE(pts.empty());
  EXPECT_LE(pts.size(), 4u);
  EXPECT_GE(pts.front().t, now - 4 * 3600 * 1000);
}

TEST(StorageImpl, WalSyncModes) {
  for (WalSyncMode mode : {WalSyncMode::kEveryBatch, WalSyncMode::kInterval, WalSyncMode::kNone}) {
    testing::TempDir dir;
    auto o = testing::SmallOptions(dir.path());
    o.wal_sync = mode;
    o.wal_sync_interval_ms = 50;
    auto db = OpenDb(o);
    const SeriesId id = Resolve(db.get(), "m", "a");
    for (int i = 0; i < 20; ++i) {
      SeriesPoint p{id, i, Value::Int(i)};
      ASSERT_TRUE(db->Append(&p, 1).ok());
    }
    const uint64_t syncs = db->stats().wal_syncs;
    if (mode == WalSyncMode::kEveryBatch) {
      EXPECT_GE(syncs, 20u);
    } else {
      EXPECT_LT(syncs, 20u);
    }
    if (mode == WalSyncMode::kInterval) {
      for (int i = 0; i < 100 && db->stats().wal_syncs == syncs; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      EXPECT_GT(db->stats().wal_syncs, syncs);  // the maintenance thread synced
    }
    ASSERT_TRUE(db->Sync().ok());
  }
}

TEST(StorageImpl, IteratorSeekAndRange) {
  testing::TempDir dir;
  auto db = OpenDb(testing::SmallOptions(dir.path()));
  auto* impl = static_cast<StorageImpl*>(db.get());
  const SeriesId id = Resolve(db.get(), "m", "a");
  std::vector<SeriesPoint> batch;
  for (int i = 0; i < 5000; ++i) batch.push_back({id, i * 10, Value::Int(i)});
  ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
  ASSERT_TRUE(impl->TEST_FlushAll().ok());
  SeriesPoint late{id, 25005, Value::Int(-1)};  // between two points, out of order
  ASSERT_TRUE(db->Append(&late, 1).ok());
  auto it = db->NewIterator(id, 100, 30000);
  ASSERT_TRUE(it->Next());
  EXPECT_EQ(it->t(), 100);
  ASSERT_TRUE(it->Seek(50));  // already past: stays
  EXPECT_EQ(it->t(), 100);
  ASSERT_TRUE(it->Seek(25001));
  EXPECT_EQ(it->t(), 25005);
  EXPECT_EQ(it->v().int_value(), -1);
  ASSERT_TRUE(it->Next());
  EXPECT_EQ(it->t(), 25010);
  ASSERT_TRUE(it->Seek(30000));
  EXPECT_EQ(it->t(), 30000);
  EXPECT_FALSE(it->Next());
  EXPECT_FALSE(it->Seek(40000));
  EXPECT_TRUE(it->status().ok());
  EXPECT_EQ(testing::ReadAll(db.get(), id, 49990, 1000000).size(), 1u);
  EXPECT_TRUE(testing::ReadAll(db.get(), id, 50000, 40000).empty());
}

// NextBatch hands out the points Next() would, whatever the batch sizes,
// across sealed, pending, head and out-of-order pages, and mixed with
// Next() and Seek(); then again once the partitions are compacted into
// cold files and late points wait in page files beside them.
TEST(StorageImpl, IteratorBatchesMatchNext) {
  const uint64_t seed = testing::TestSeed(std::random_device{}());
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto o = SmallOptions(dir.path());
  o.partition_duration_ms = 3600 * 1000;
  auto db = OpenDb(o);
  auto* impl = static_cast<StorageImpl*>(db.get());
  const SeriesId id = Resolve(db.get(), "temp", "batch");
  Timestamp t = 0;
  for (int round = 0; round < 20; ++round) {
    std::vector<SeriesPoint> batch;
    for (int i = 0; i < 400; ++i) {
      t += 1 + static_cast<Timestamp>(rng() % 3000);
      batch.push_back({id, t, Value::Int(static_cast<int64_t>(rng() % 100))});
      if (rng() % 8 == 0) {  // a late point, maybe on an existing timestamp
        const Timestamp late = static_cast<Timestamp>(rng() % static_cast<uint64_t>(t + 1));
        batch.push_back({id, late, Value::Float(static_cast<double>(rng() % 1000) / 10)});
      }
    }
    ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
    if (round % 3 == 1) {
      ASSERT_TRUE(impl->TEST_FlushAll().ok());
    }
  }
  const auto check = [&](const char* phase) {
    for (int q = 0; q < 200; ++q) {
      const Timestamp a = static_cast<Timestamp>(rng() % static_cast<uint64_t>(t));
      const Timestamp b = a + static_cast<Timestamp>(rng() % static_cast<uint64_t>(t));
      std::vector<Sample> want;
      auto ref = db->NewIterator(id, a, b);
      while (ref->Next()) want.push_back({ref->t(), ref->v()});
      ASSERT_TRUE(ref->status().ok());
      auto it = db->NewIterator(id, a, b);
      std::vector<Sample> got;
      Timestamp ts[100];
      Value vs[100];
      for (;;) {
        const uint64_t r = rng() % 10;
        if (r == 0) {
          if (!it->Next()) break;
          got.push_back({it->t(), it->v()});
          continue;
        }
        if (r == 1 && !want.empty()) {  // seek to a point we will read next anyway
          const size_t next = got.size();
          if (next < want.size()) {
            ASSERT_TRUE(it->Seek(want[next].t)) << "seed " << seed;
            if (next == 0 || it->t() != got.back().t) got.push_back({it->t(), it->v()});
          }
          continue;
        }
        const size_t max = 1 + rng() % 100;
        const size_t n = it->NextBatch(ts, vs, max);
        ASSERT_LE(n, max);
        for (size_t i = 0; i < n; ++i) got.push_back({ts[i], vs[i]});
        if (n > 0) {
          EXPECT_EQ(it->t(), ts[n - 1]);
        }
        if (n < max) break;
      }
      EXPECT_TRUE(it->status().ok());
      ASSERT_EQ(got.size(), want.size())
          << phase << " seed " << seed << " range " << a << ".." << b;
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(got[i].t, want[i].t) << phase << " seed " << seed << " at " << i;
        ASSERT_TRUE(got[i].v.BitEquals(want[i].v)) << phase << " seed " << seed << " at " << i;
      }
    }
  };
  check("pages");
  if (HasFatalFailure()) return;
  ASSERT_TRUE(impl->TEST_Compact(t + 1).ok());
  ASSERT_GE(db->stats().partitions_compacted, 2u);
  std::vector<SeriesPoint> late;
  for (int i = 0; i < 300; ++i) {
    const Timestamp at = static_cast<Timestamp>(rng() % static_cast<uint64_t>(t + 1));
    late.push_back({id, at, Value::Int(static_cast<int64_t>(rng() % 100))});
  }
  ASSERT_TRUE(db->Append(late.data(), late.size()).ok());
  check("compacted");
  // A run of a cold block is held while it is read (a query's memory
  // limit counts it), and given back once read. The first point may come
  // from memory (a late point older than every compacted one), so the
  // largest hold over the whole read is what is checked.
  auto it = db->NewIterator(id, 0, t);
  uint64_t held = 0;
  while (it->Next()) held = std::max<uint64_t>(held, it->HeldBytes());
  EXPECT_GE(held, 100 * (sizeof(Timestamp) + sizeof(Value))) << "seed " << seed;
  EXPECT_EQ(it->HeldBytes(), 0u);
}

// A backfill of out-of-order history over many partitions seals many small
// pages; the pending-page budget keeps what waits for the writer near the
// budget (Appends wait for the maintenance thread) and loses no point.
TEST(StorageImpl, PendingBudgetBoundsABackfill) {
  // SUNDIAL_TEST_SEED=<n> repeats a run.
  const char* seed_env = std::getenv("SUNDIAL_TEST_SEED");
  const uint32_t seed = seed_env != nullptr ? static_cast<uint32_t>(std::strtoul(seed_env, nullptr, 10))
                                            : static_cast<uint32_t>(std::random_device{}());
  std::printf("seed %u\n", seed);
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  o.partition_duration_ms = 3600 * 1000;  // one hour: 48 partitions below
  o.pending_budget_bytes = 4096;
  auto db = OpenDb(o);
  constexpr int kSeries = 4, kThreads = 2, kBatch = 64, kSteps = 4000;
  constexpr Timestamp kStart = Timestamp{94694400} * 1000;  // 1973
  constexpr Timestamp kStep = 43200;  // 48 hours over kSteps points
  std::vector<SeriesId> ids;
  for (int i = 0; i < kSeries; ++i) ids.push_back(Resolve(db.get(), "bf", "h" + std::to_string(i)));
  // Each thread owns two series and sends every step once, half of them in
  // random order after the others (a jump to any partition each time).
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([&, th] {
      std::mt19937 rng(seed + static_cast<uint32_t>(th));
      std::vector<int> order, late;
      for (int i = 0; i < kSteps; ++i) (i % 2 == 0 ? order : late).push_back(i);
      std::shuffle(late.begin(), late.end(), rng);
      order.insert(order.end(), late.begin(), late.end());
      std::vector<SeriesPoint> batch;
      for (int i : order) {
        for (int k = th; k < kSeries; k += kThreads) {
          batch.push_back({ids[k], kStart + i * kStep, Value::Float(i * 0.5 + k)});
        }
        if (batch.size() >= kBatch) {
          ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
          batch.clear();
        }
      }
      ASSERT_TRUE(db->Append(batch.data(), batch.size()).ok());
    });
  }
  for (auto& t : threads) t.join();
  const StorageStats st = db->stats();
  // An Append seals at most two pages per point before it checks the
  // budget (the head's and the out-of-order page's), each costing less
  // than a PendingPage plus the page size.
  const uint64_t slack = uint64_t{kThreads} * (kBatch + kSeries) * 2 *
                         (sizeof(PendingPage) + o.page_size);
  std::printf("pending peak %llu bytes (budget %llu + slack %llu), %llu waits\n",
              static_cast<unsigned long long>(st.pending_bytes_peak),
              static_cast<unsigned long long>(o.pending_budget_bytes),
              static_cast<unsigned long long>(slack),
              static_cast<unsigned long long>(st.append_waits));
  EXPECT_LE(st.pending_bytes_peak, o.pending_budget_bytes + slack);
  if (st.pending_bytes_peak > o.pending_budget_bytes) {
    EXPECT_GT(st.append_waits, 0u);
  }
  for (int k = 0; k < kSeries; ++k) {
    const std::vector<Sample> got = ReadAll(db.get(), ids[k]);
    ASSERT_EQ(got.size(), static_cast<size_t>(kSteps)) << "series " << k;
    for (int i = 0; i < kSteps; ++i) {
      ASSERT_EQ(got[i].t, kStart + i * kStep);
      ASSERT_EQ(got[i].v.AsDouble(), i * 0.5 + k);
    }
  }
  // Pending counters come back to zero once everything is written.
  ASSERT_TRUE(static_cast<StorageImpl*>(db.get())->TEST_FlushAll().ok());
  EXPECT_EQ(db->stats().pending_bytes, 0u);
  EXPECT_EQ(db->stats().pages_pending, 0u);
}

}  // namespace
}  // namespace sundial::storage
