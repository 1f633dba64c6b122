// rollup_rewrite_bench: what the rollups write to disk in a long trickle.
// N series, one point each every 10 s (2-decimal random walks), on a
// simulated clock that follows the data, so days pass in seconds. The
// rollup builder runs once a simulated minute, as the server's does; each
// pass that closes a batch of hours (rollup.batch) rewrites the day file
// (tmp file, fsync, rename) and STATE. Printed per simulated day: the points, the day file's size at
// the end of the day, the files written and the 4 KiB blocks they dirty
// (each file is written whole and fsynced, so ceil(size / 4096) blocks),
// as KiB and as bytes per stored point: the long-run share of the rollups
// in bench/sd_writes.sh's "beyond the floor".
//
// Usage: rollup_rewrite_bench [series=20] [days=3] [batch hours=6, rollup.batch's default]
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/storage.h"

namespace sundial {
namespace {

namespace fs = std::filesystem;
using rollup::kDayMs;
using rollup::kHourMs;

constexpr int64_t kStepMs = 10000;
constexpr int64_t kMinuteMs = 60000;
constexpr int64_t kDay0 = 20000 * kDayMs;  // a UTC day start

// A file's size and modification time (ns), by name.
using Seen = std::map<std::string, std::pair<uint64_t, int64_t>>;

// Blocks dirtied by the files of dir written since *seen; updates *seen
// and counts them in *files. Each is written whole and fsynced.
uint64_t NewBlocks(const std::string& dir, Seen* seen, uint64_t* files) {
  uint64_t blocks = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    struct stat st {};
    if (!e.is_regular_file() || stat(e.path().c_str(), &st) != 0) continue;
    const int64_t mtime = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    const auto now = std::make_pair(static_cast<uint64_t>(st.st_size), mtime);
    auto& before = (*seen)[e.path().filename().string()];
    if (before == now) continue;
    before = now;
    if (now.first == 0) continue;  // dirty.log, empty
    blocks += (now.first + 4095) / 4096;
    ++*files;
  }
  return blocks;
}

int Run(int series, int days, int batch_hours) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/sundial-rollup-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return 1;
  int64_t now = kDay0;
  rollup::RollupOptions ro;
  ro.dir = dir + "/rollup";
  ro.clock = [&now] { return now; };
  ro.batch_ms = int64_t{batch_hours} * kHourMs;
  std::unique_ptr<rollup::RollupStore> rollups;
  Status s = rollup::RollupStore::Open(ro, &rollups);
  storage::StorageOptions so;
  so.data_dir = dir;
  so.wal_sync = storage::WalSyncMode::kNone;
  so.late_observer = rollups.get();
  std::unique_ptr<storage::Storage> db;
  if (s.ok()) s = storage::Storage::Open(so, &db);
  std::vector<SeriesId> ids(series);
  for (int i = 0; s.ok() && i < series; ++i) {
    const std::string host = "host" + std::to_string(i);
    storage::TagRef tag{"host", host};
    s = db->ResolveSeries("sys.cpu.user", &tag, 1, &ids[i]);
  }
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::printf("rollup_rewrite_bench: %d series, one point each every 10 s, %d days, batch %d h\n",
              series, days, batch_hours);
  std::printf("%4s %10s %14s %7s %12s %8s\n", "day", "points", "day file bytes", "files",
              "blocks KiB", "B/pt");
  std::mt19937_64 rng(42);
  std::vector<int64_t> level(series, 5000);
  Seen seen;
  uint64_t total_points = 0, total_blocks = 0;
  for (int day = 0; day < days; ++day) {
    uint64_t points = 0, blocks = 0, files = 0;
    std::vector<storage::SeriesPoint> batch(series);
    for (int64_t t = kDay0 + day * kDayMs; t < kDay0 + (day + 1) * kDayMs; t += kStepMs) {
      for (int i = 0; i < series; ++i) {
        level[i] += static_cast<int64_t>(rng() % 201) - 100;
        batch[i] = {ids[i], t, Value::Float(static_cast<double>(level[i]) / 100)};
      }
      if (!(s = db->Append(batch.data(), batch.size())).ok()) break;
      points += series;
      now = t + kStepMs;
      if (now % kMinuteMs == 0) {
        if (!(s = rollups->BuildNow(db.get())).ok()) break;
        blocks += NewBlocks(ro.dir, &seen, &files);
      }
    }
    if (!s.ok()) break;
    uint64_t day_file = 0;
    std::error_code ec;
    const std::string name = ro.dir + "/" + std::to_string(kDay0 + day * kDayMs) + ".rlp";
    if (fs::exists(name, ec)) day_file = fs::file_size(name, ec);
    total_points += points;
    total_blocks += blocks;
    std::printf("%4d %10llu %14llu %7llu %12llu %8.2f\n", day + 1,
                static_cast<unsigned long long>(points), static_cast<unsigned long long>(day_file),
                static_cast<unsigned long long>(files), static_cast<unsigned long long>(blocks * 4),
                blocks * 4096.0 / static_cast<double>(points));
  }
  if (s.ok()) {
    std::printf("all  %10llu %14s %7s %12llu %8.2f\n",
                static_cast<unsigned long long>(total_points), "", "",
                static_cast<unsigned long long>(total_blocks * 4),
                total_blocks * 4096.0 / static_cast<double>(total_points));
  } else {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
  }
  db.reset();
  rollups.reset();
  std::error_code ec;
  fs::remove_all(dir, ec);
  return s.ok() ? 0 : 1;
}

}  // namespace
}  // namespace sundial

int main(int argc, char** argv) {
  const int series = argc > 1 ? std::atoi(argv[1]) : 20;
  const int days = argc > 2 ? std::atoi(argv[2]) : 3;
  const int batch = argc > 3 ? std::atoi(argv[3]) : 6;
  if (series <= 0 || days <= 0 || batch < 1 || batch > 24) {
    std::fprintf(stderr, "usage: rollup_rewrite_bench [series=20] [days=3] [batch hours=6, 1..24]\n");
    return 2;
  }
  return sundial::Run(series, days, batch);
}
