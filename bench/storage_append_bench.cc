// Storage engine benchmark: in-process append throughput, anonymous RSS per
// number of active series, and bytes per point on disk after a clean stop.
//
//   storage_append_bench append [series=10000] [points_per_series=1000]
//   storage_append_bench rss <series> [points_per_series=30]
//   storage_append_bench disk [points_per_fixture=1000000]
//     (also after compacting every partition into cold files, and how long
//     the compaction took per point)
//   storage_append_bench sim [series=10000] [days=7]
//   storage_append_bench all        (the above, RSS and sim in child processes;
//                                    sim at 10k series for 7 days, 100k for 1 h)
//
// "sim" runs the engine on a simulated clock that follows the data (one
// round of points every 10 s of simulated time, a maintenance pass after
// every batch of 1000 points, so checkpoints, sealing and partition
// eviction happen as they would in that much real time) and prints
// anonymous RSS after 1 h, 1 day and each further day, and the bytes
// written to disk per stored point by kind of file (write amplification).
// fsync is counted but not performed.
//
// Data: DevOps-like series (8 tags), one point per series every 10 s, values
// with 2 decimals (an hourly level plus noise); the "disk" mode uses
// compress' fixtures.
#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compress_fixtures.h"
#include "sundial/common/env.h"
#include "storage/storage_impl.h"
#include "sundial/storage/storage.h"

namespace sundial::storage {
namespace {

namespace fs = std::filesystem;

std::string MakeTempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/sundial-bench-XXXXXX";
  if (mkdtemp(&tmpl[0]) == nullptr) std::abort();
  return tmpl;
}

uint64_t RssAnonKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::strtoull(line.c_str() + 8, nullptr, 10);
  }
  return 0;
}

void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::exit(1);
  }
}

std::vector<SeriesId> MakeSeries(Storage* db, size_t n) {
  std::vector<SeriesId> ids(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string host = "host_" + std::to_string(i / 101);
    const std::string metric = "cpu.usage_" + std::to_string(i % 101);
    const std::string rack = std::to_string(i / 101 % 40);
    TagRef tags[] = {{"host", host},      {"region", "eu-west-1"}, {"datacenter", "eu-west-1a"},
                     {"rack", rack},      {"os", "Ubuntu16.04LTS"}, {"arch", "x64"},
                     {"team", "SF"},      {"service", "18"}};
    Check(db->ResolveSeries(metric, tags, 8, &ids[i]), "resolve");
  }
  return ids;
}

// Appends rounds [r0, r1) of one point per series for ids[first, last),
// in batches of `batch` points (as one ingest connection would).
void AppendRounds(Storage* db, const std::vector<SeriesId>& ids, size_t first, size_t last,
                  int r0, int r1, size_t batch, Timestamp t0 = 1700000000000,
                  const std::function<void()>& after_batch = nullptr) {
  std::vector<SeriesPoint> buf;
  buf.reserve(batch);
  for (int r = r0; r < r1; ++r) {
    const Timestamp t = t0 + static_cast<Timestamp>(r) * 10000;
    for (size_t k = first; k < last; ++k) {
      // 2-decimal sensor-like values: a level that moves every hour plus
      // about 7 bits of noise per point (deterministic, no state).
      uint64_t h = (static_cast<uint64_t>(k) << 32) ^ static_cast<uint64_t>(r);
      h = (h ^ (h >> 31)) * 0x9e3779b97f4a7c15ull;
      h ^= h >> 29;
      const int64_t level =
          static_cast<int64_t>((k * 7919 + static_cast<size_t>(r / 360) * 31) % 997);
      const int64_t cents = 5000 + level * 10 + static_cast<int64_t>(h % 128);
      buf.push_back({ids[k], t, Value::Float(static_cast<double>(cents) / 100.0)});
      if (buf.size() == batch) {
        Check(db->Append(buf.data(), buf.size()), "append");
        buf.clear();
        if (after_batch) after_batch();
      }
    }
  }
  if (!buf.empty()) Check(db->Append(buf.data(), buf.size()), "append");
}

void Throughput(size_t series, int rounds) {
  for (int threads = 1; threads <= 2; ++threads) {
    const std::string dir = MakeTempDir();
    StorageOptions o;
    o.data_dir = dir;
    std::unique_ptr<Storage> db;
    Check(Storage::Open(o, &db), "open");
    auto ids = MakeSeries(db.get(), series);
    AppendRounds(db.get(), ids, 0, series, 0, 2, 1000);  // warm up: heads exist
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int i = 0; i < threads; ++i) {
      ts.emplace_back([&, i] {
        // Each thread owns a contiguous share of the series (its hosts).
        AppendRounds(db.get(), ids, series * i / threads, series * (i + 1) / threads, 2,
                     rounds + 2, 1000);
      });
    }
    for (auto& t : ts) t.join();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double pts = static_cast<double>(series) * rounds;
    std::printf("append  threads=%d series=%zu points=%.0f  %.2f M points/s  (%.0f ns/point)\n",
                threads, series, pts, pts / secs / 1e6, secs * 1e9 / pts);
    db.reset();
    fs::remove_all(dir);
  }
}

void Rss(size_t series, int rounds) {
  const uint64_t before = RssAnonKb();
  const std::string dir = MakeTempDir();
  StorageOptions o;
  o.data_dir = dir;
  std::unique_ptr<Storage> db;
  Check(Storage::Open(o, &db), "open");
  auto ids = MakeSeries(db.get(), series);
  AppendRounds(db.get(), ids, 0, series, 0, rounds, 1000);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let pending pages go out
  const uint64_t after = RssAnonKb();
  const StorageStats st = db->stats();
  std::printf("rss     series=%zu  RssAnon %.1f MB total (%.1f MB before open), "
              "engine estimate %.1f MB, %.0f B/series\n",
              series, after / 1024.0, before / 1024.0, st.memory_bytes / 1048576.0,
              (after - before) * 1024.0 / static_cast<double>(series));
  db.reset();
  fs::remove_all(dir);
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t n = 0;
  for (auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) n += e.file_size();
  }
  return n;
}

void Disk(size_t points_per_fixture) {
  for (const auto& fx : bench::MakeFixtures(points_per_fixture)) {
    const std::string dir = MakeTempDir();
    StorageOptions o;
    o.data_dir = dir;
    {
      std::unique_ptr<Storage> db;
      Check(Storage::Open(o, &db), "open");
      std::vector<SeriesId> ids;
      for (size_t s = 0; s < fx.series.size(); ++s) {
        const std::string id = std::to_string(s);
        TagRef tag{"id", id};
        ids.push_back(0);
        Check(db->ResolveSeries(fx.name, &tag, 1, &ids.back()), "resolve");
      }
      std::vector<SeriesPoint> buf;
      size_t longest = 0;
      for (const auto& s : fx.series) longest = std::max(longest, s.size());
      for (size_t i = 0; i < longest; ++i) {  // interleaved, as ingest sees them
        for (size_t s = 0; s < fx.series.size(); ++s) {
          if (i < fx.series[s].size()) {
            buf.push_back({ids[s], fx.series[s][i].t, fx.series[s][i].v});
          }
          if (buf.size() == 1000) {
            Check(db->Append(buf.data(), buf.size()), "append");
            buf.clear();
          }
        }
      }
      if (!buf.empty()) Check(db->Append(buf.data(), buf.size()), "append");
    }  // clean shutdown
    const uint64_t pages = DirBytes(dir + "/part");
    const uint64_t total = DirBytes(dir);
    // Then every partition compacted into cold files.
    double compact_ms = 0;
    uint64_t cold = 0;
    {
      std::unique_ptr<StorageImpl> db;
      Check(StorageImpl::Open(o, NewPosixEnv(), &db), "reopen");
      const auto t0 = std::chrono::steady_clock::now();
      Check(db->TEST_Compact(kMaxTimestamp), "compact");
      compact_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                       .count();
      cold = DirBytes(dir + "/part");
      size_t read = 0;
      for (SeriesId id = 0; id < fx.series.size(); ++id) {
        auto it = db->NewIterator(id, kMinTimestamp, kMaxTimestamp);
        while (it->Next()) ++read;
      }
      if (read != fx.points()) {
        std::fprintf(stderr, "%s: %zu points read after compaction, %zu written\n",
                     fx.name.c_str(), read, fx.points());
        std::exit(1);
      }
    }
    const double n = static_cast<double>(fx.points());
    std::printf("disk    %-28s series=%5zu points=%8zu  pages+index %.3f B/pt, whole dir %.3f B/pt, "
                "compacted %.3f B/pt (%.0f ns/pt)\n",
                fx.name.c_str(), fx.series.size(), fx.points(), pages / n, total / n, cold / n,
                compact_ms * 1e6 / n);
    fs::remove_all(dir);
  }
}

// ---- Simulated clock ----

// Bytes written per kind of file, and the 4 KiB blocks those writes dirty
// as the kernel counts them in /proc/PID/io write_bytes (what an SD card
// is asked to write): a page counts when it becomes dirty; it is clean
// again after an fsync of its file, or once written back 30 s (simulated)
// after it became dirty; cutting a file inside a block dirties that block.
// The same model as bench/sd_writes_attrib.py, on the simulated clock.
enum Kind { kWal, kCheckpoint, kPages, kIndex, kDict, kKinds };
struct WriteCounters {
  std::atomic<uint64_t> bytes[kKinds] = {};
  std::atomic<uint64_t> blocks[kKinds] = {};
  std::atomic<uint64_t> syncs{0};
};

// Forwards to the POSIX Env; the clock is set by the benchmark, writes are
// counted by kind, and fsync only counts (and cleans the file's pages).
class SimEnv final : public EnvWrapper {
 public:
  // posix is borrowed and must outlive this Env.
  SimEnv(Env* posix, std::atomic<int64_t>* clock, WriteCounters* counters)
      : EnvWrapper(posix), clock_(clock), counters_(counters) {}
  Status OpenFile(const std::string& path, std::unique_ptr<File>* out) override {
    std::unique_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(target()->OpenFile(path, &f));
    out->reset(new CountingFile(std::move(f), this));
    return Status::OK();
  }
  Status OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) override {
    std::unique_ptr<File> f;
    SUNDIAL_RETURN_IF_ERROR(target()->OpenExistingFile(path, &f));
    out->reset(new CountingFile(std::move(f), this));
    return Status::OK();
  }
  Status SyncDir(const std::string&) override {
    counters_->syncs.fetch_add(1, std::memory_order_relaxed);
    return Status::OK();
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    SUNDIAL_RETURN_IF_ERROR(target()->RenameFile(from, to));
    std::lock_guard<std::mutex> lock(mu_);
    auto it = dirty_.find(from);
    if (it != dirty_.end()) {
      dirty_[to] = std::move(it->second);
      dirty_.erase(from);
    } else {
      dirty_.erase(to);
    }
    return Status::OK();
  }
  Status RemoveFile(const std::string& path) override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      dirty_.erase(path);
    }
    return target()->RemoveFile(path);
  }
  int64_t NowMs() override { return clock_->load(std::memory_order_relaxed); }

 private:
  static constexpr uint64_t kPage = 4096;
  static constexpr int64_t kExpireMs = 30000;

  class CountingFile final : public File {
   public:
    CountingFile(std::unique_ptr<File> f, SimEnv* env)
        : f_(std::move(f)), env_(env), kind_(KindOf(f_->path())) {}
    Status Write(uint64_t offset, const char* data, size_t n) override {
      env_->counters_->bytes[kind_].fetch_add(n, std::memory_order_relaxed);
      if (n > 0) env_->Dirty(path(), kind_, offset / kPage, (offset + n - 1) / kPage);
      return f_->Write(offset, data, n);
    }
    Status Read(uint64_t o, size_t n, char* d, size_t* g) override { return f_->Read(o, n, d, g); }
    Status Sync() override {
      env_->counters_->syncs.fetch_add(1, std::memory_order_relaxed);
      env_->Clean(path());
      return Status::OK();
    }
    Status Truncate(uint64_t s) override {
      uint64_t old = 0;
      if (f_->Size(&old).ok() && s < old && s % kPage != 0) {
        env_->Dirty(path(), kind_, s / kPage, s / kPage);  // the rest of the block is zeroed
      }
      env_->Drop(path(), (s + kPage - 1) / kPage);
      return f_->Truncate(s);
    }
    Status Size(uint64_t* s) override { return f_->Size(s); }
    Status Map(uint64_t o, size_t l, std::unique_ptr<MappedRegion>* out) override {
      return f_->Map(o, l, out);
    }
    const std::string& path() const override { return f_->path(); }

   private:
    std::unique_ptr<File> f_;
    SimEnv* const env_;
    const Kind kind_;
  };

  static Kind KindOf(const std::string& path) {
    auto ends = [&](const char* tail) {
      const size_t n = std::strlen(tail);
      return path.size() >= n && path.compare(path.size() - n, n, tail) == 0;
    };
    if (ends(".wal")) return kWal;
    if (ends(".ckpt.tmp") || ends(".ckpt")) return kCheckpoint;
    if (ends("/pages") || path.find("/cold") != std::string::npos) return kPages;
    if (ends("/index") || ends("/index.tmp")) return kIndex;
    return kDict;
  }
  // Pages [first, last] of path are written now.
  void Dirty(const std::string& path, Kind kind, uint64_t first, uint64_t last) {
    const int64_t now = NowMs();
    std::lock_guard<std::mutex> lock(mu_);
    auto& pages = dirty_[path];
    uint64_t fresh = 0;
    for (uint64_t p = first; p <= last; ++p) {
      auto it = pages.find(p);
      if (it == pages.end()) {
        pages.emplace(p, now);
        ++fresh;
      } else if (now - it->second >= kExpireMs) {  // written back meanwhile
        it->second = now;
        ++fresh;
      }
    }
    counters_->blocks[kind].fetch_add(fresh, std::memory_order_relaxed);
  }
  void Clean(const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    dirty_.erase(path);
  }
  // Forgets the pages of path from `from` on (the file was cut there).
  void Drop(const std::string& path, uint64_t from) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = dirty_.find(path);
    if (it != dirty_.end()) it->second.erase(it->second.lower_bound(from), it->second.end());
  }

  std::atomic<int64_t>* const clock_;
  WriteCounters* const counters_;
  std::mutex mu_;
  std::map<std::string, std::map<uint64_t, int64_t>> dirty_;  // path -> page -> dirtied at
};

void PrintWrites(const char* when, const WriteCounters& c, double points) {
  static const char* const kNames[kKinds] = {"WAL", "checkpoints", "pages", "index",
                                             "dictionary"};
  double bytes = 0, blocks = 0;
  std::string by_bytes, by_blocks;
  char buf[64];
  for (int k = 0; k < kKinds; ++k) {
    const double b = static_cast<double>(c.bytes[k].load());
    const double k4 = static_cast<double>(c.blocks[k].load()) * 4096;
    bytes += b;
    blocks += k4;
    std::snprintf(buf, sizeof(buf), "%s%s %.3f", k ? ", " : "", kNames[k], b / points);
    by_bytes += buf;
    std::snprintf(buf, sizeof(buf), "%s%s %.3f", k ? ", " : "", kNames[k], k4 / points);
    by_blocks += buf;
  }
  std::printf("writes  %-9s %.0f points: %.2f B/pt written (%s), %llu fsyncs\n", when, points,
              bytes / points, by_bytes.c_str(), static_cast<unsigned long long>(c.syncs.load()));
  std::printf("blocks  %-9s 4 KiB blocks dirtied: %.2f B/pt (%s)\n", when, blocks / points,
              by_blocks.c_str());
}

void Simulate(size_t series, int days) {
  constexpr Timestamp kDay = 86400000;
  constexpr int kRoundsPerDay = 8640;  // one point per series every 10 s
  const Timestamp t0 = 1700006400000;  // a day boundary: day partitions fill whole
  const std::string dir = MakeTempDir();
  std::atomic<int64_t> clock{t0};
  WriteCounters counters;
  StorageOptions o;
  o.data_dir = dir;
  const std::unique_ptr<Env> posix = NewPosixEnv();  // outlives db
  std::unique_ptr<StorageImpl> db;
  Check(StorageImpl::Open(o, std::make_unique<SimEnv>(posix.get(), &clock, &counters), &db, false),
        "open");
  auto ids = MakeSeries(db.get(), series);
  const auto w0 = std::chrono::steady_clock::now();
  const int total = days <= 0 ? 360 : days * kRoundsPerDay;
  for (int r = 0; r < total;) {
    // The next report: 1 h, then each whole day.
    const int stop = r < 360 ? std::min(total, 360)
                             : std::min(total, (r / kRoundsPerDay + 1) * kRoundsPerDay);
    for (; r < stop; ++r) {
      clock.store(t0 + static_cast<Timestamp>(r) * 10000 + 5000);
      // A pass after every batch, as the engine's own thread is woken once
      // 256 sealed pages wait (e.g. when every series moves to a new day).
      // Batches of 1000 points, or one burst per round for fewer series.
      AppendRounds(db.get(), ids, 0, series, r, r + 1, std::min<size_t>(1000, series), t0,
                   [&] { db->TEST_RunMaintenance(); });
    }
    const double points = static_cast<double>(series) * r;
    char when[32];
    if (r == 360) {
      std::snprintf(when, sizeof(when), "1 h");
    } else {
      std::snprintf(when, sizeof(when), "%d day%s", r / kRoundsPerDay,
                    r >= 2 * kRoundsPerDay ? "s" : "");
    }
    const StorageStats st = db->stats();
    const uint64_t rss = RssAnonKb();
    malloc_trim(0);  // what part of it is free heap the allocator keeps
    std::printf("sim     series=%zu %-9s RssAnon %.1f MB (%.1f MB after malloc_trim), "
                "engine estimate %.1f MB, "
                "%llu pages written, %llu partitions open, wall %.0f s\n",
                series, when, rss / 1024.0, RssAnonKb() / 1024.0, st.memory_bytes / 1048576.0,
                static_cast<unsigned long long>(st.pages_written),
                static_cast<unsigned long long>(st.partitions),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    PrintWrites(when, counters, points);
    std::fflush(stdout);
  }
  (void)kDay;
  db.reset();  // clean shutdown
  PrintWrites("+shutdown", counters, static_cast<double>(series) * total);
  fs::remove_all(dir);
}

// Runs `self rss n` in a child so that each figure starts from a fresh heap.
void InChild(const char* self, const char* mode, size_t series, const char* arg2 = nullptr) {
  const pid_t pid = fork();
  if (pid == 0) {
    const std::string n = std::to_string(series);
    execl(self, self, mode, n.c_str(), arg2, static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
}

}  // namespace
}  // namespace sundial::storage

int main(int argc, char** argv) {
  using namespace sundial::storage;
  const std::string mode = argc > 1 ? argv[1] : "all";
  auto arg = [&](int i, size_t def) {
    return argc > i ? static_cast<size_t>(std::strtoull(argv[i], nullptr, 10)) : def;
  };
  if (mode == "append") {
    Throughput(arg(2, 10000), static_cast<int>(arg(3, 1000)));
  } else if (mode == "rss") {
    Rss(arg(2, 10000), static_cast<int>(arg(3, 30)));
  } else if (mode == "disk") {
    Disk(arg(2, 1000000));
  } else if (mode == "sim") {
    Simulate(arg(2, 10000), static_cast<int>(arg(3, 7)));
  } else if (mode == "all") {
    Throughput(10000, 1000);
    InChild(argv[0], "rss", 10000);
    InChild(argv[0], "rss", 100000);
    Disk(1000000);
    InChild(argv[0], "sim", 10000, "7");
    InChild(argv[0], "sim", 100000, "0");
  } else {
    std::fprintf(stderr, "usage: %s [append|rss|disk|all] ...\n", argv[0]);
    return 2;
  }
  return 0;
}
