// storage_snapshot_bench: how long appends stall while snapshots and
// deletes run. Writer threads append batches as fast as they can into a
// fresh engine; after a warm-up the main thread takes snapshots (and then
// runs range deletes) one after another. Printed: the snapshot's own pause
// (SnapshotInfo::pause_us), its wall time and sizes, and the append
// latency (max and p99.9 per batch) without and with snapshots/deletes
// running, so that the stall is visible as the difference.
//
// Usage: storage_snapshot_bench [--series N] [--seconds S] [--threads T]
//        [--dir PATH]  (default: a fresh dir under $TMPDIR, removed after)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "storage/storage_impl.h"

namespace sundial::storage {
namespace {

using Clock = std::chrono::steady_clock;

struct Latencies {
  std::vector<int64_t> us;
  void Summary(const char* label) {
    if (us.empty()) {
      std::printf("%-28s no batches\n", label);
      return;
    }
    std::sort(us.begin(), us.end());
    const size_t p999 = std::min(us.size() - 1, us.size() * 999 / 1000);
    std::printf("%-28s batches %8zu  p50 %6lld us  p99.9 %6lld us  max %7lld us\n", label,
                us.size(), static_cast<long long>(us[us.size() / 2]),
                static_cast<long long>(us[p999]), static_cast<long long>(us.back()));
  }
};

int Run(int argc, char** argv) {
  uint32_t series = 10000, threads = 2;
  int seconds = 4;
  std::string dir;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--series")) series = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--threads")) threads = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    if (!std::strcmp(argv[i], "--dir")) dir = argv[i + 1];
  }
  const bool own_dir = dir.empty();
  if (own_dir) {
    const char* base = std::getenv("TMPDIR");
    dir = std::string(base ? base : "/tmp") + "/sundial-snapshot-bench-" +
          std::to_string(::getpid());
  }
  StorageOptions o;
  o.data_dir = dir;
  o.wal_sync = WalSyncMode::kNone;
  std::unique_ptr<StorageImpl> db;
  Status s = StorageImpl::Open(o, NewPosixEnv(), &db);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::vector<SeriesId> ids(series);
  for (uint32_t i = 0; i < series; ++i) {
    const std::string host = "h" + std::to_string(i);
    TagRef tag{"host", host};
    if (!db->ResolveSeries("bench.snap", &tag, 1, &ids[i]).ok()) return 1;
  }
  // Phase 0: writers only; phase 1: snapshots; phase 2: deletes.
  std::atomic<int> phase{0};
  std::atomic<bool> stop{false};
  std::vector<Latencies> lat(3 * threads);
  const Timestamp t0 = 1700000000000;
  std::vector<std::thread> writers;
  for (uint32_t w = 0; w < threads; ++w) {
    writers.emplace_back([&, w] {
      std::vector<SeriesPoint> batch(500);
      for (uint64_t round = 0; !stop.load(std::memory_order_relaxed); ++round) {
        for (size_t k = 0; k < batch.size(); ++k) {
          const uint64_t n = round * batch.size() + k;
          batch[k] = {ids[static_cast<size_t>((n * threads + w) % series)],
                      t0 + static_cast<Timestamp>(n / series) * 1000,
                      Value::Float(static_cast<double>(n % 1000) / 10)};
        }
        const int ph = phase.load(std::memory_order_relaxed);
        const auto a = Clock::now();
        if (!db->Append(batch.data(), batch.size()).ok()) return;
        lat[ph * threads + w].us.push_back(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - a).count());
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  phase.store(1);
  int snaps = 0;
  int64_t max_pause = 0, max_wall = 0;
  const auto snap_end = Clock::now() + std::chrono::seconds(seconds);
  SnapshotInfo last;
  while (Clock::now() < snap_end) {
    const auto a = Clock::now();
    SnapshotInfo info;
    s = db->Snapshot("", {}, &info);
    if (!s.ok()) {
      std::fprintf(stderr, "snapshot: %s\n", s.ToString().c_str());
      break;
    }
    max_wall = std::max<int64_t>(
        max_wall, std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - a).count());
    max_pause = std::max(max_pause, info.pause_us);
    (void)db->RemoveSnapshot(info.name);
    last = info;
    ++snaps;
  }
  phase.store(2);
  int deletes = 0;
  int64_t max_delete = 0;
  const auto del_end = Clock::now() + std::chrono::seconds(seconds);
  for (uint32_t i = 0; Clock::now() < del_end; i = (i + 97) % series) {
    const auto a = Clock::now();
    s = db->DeleteRange({ids[i]}, t0, t0 + 60000, false, nullptr);
    if (!s.ok()) break;
    max_delete = std::max<int64_t>(
        max_delete, std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - a).count());
    ++deletes;
  }
  stop.store(true);
  for (auto& t : writers) t.join();
  const StorageStats st = db->stats();
  std::printf("series %u, writer threads %u, %llu points appended\n", series, threads,
              static_cast<unsigned long long>(st.points_appended));
  std::printf("snapshots: %d, longest append pause %lld us (WAL position), longest snapshot "
              "%lld ms; last: %llu bytes, %llu files linked, %llu copied (%llu bytes)\n",
              snaps, static_cast<long long>(max_pause), static_cast<long long>(max_wall),
              static_cast<unsigned long long>(last.bytes),
              static_cast<unsigned long long>(last.files_linked),
              static_cast<unsigned long long>(last.files_copied),
              static_cast<unsigned long long>(last.bytes_copied));
  std::printf("deletes: %d, longest %lld us\n", deletes, static_cast<long long>(max_delete));
  const char* labels[3] = {"append, idle", "append, during snapshots", "append, during deletes"};
  for (int ph = 0; ph < 3; ++ph) {
    Latencies all;
    for (uint32_t w = 0; w < threads; ++w) {
      auto& v = lat[ph * threads + w].us;
      all.us.insert(all.us.end(), v.begin(), v.end());
    }
    all.Summary(labels[ph]);
  }
  db.reset();
  if (own_dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace sundial::storage

int main(int argc, char** argv) { return sundial::storage::Run(argc, argv); }
