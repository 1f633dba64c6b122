// kill -9 at random moments while a separate process appends: after every
// restart each acknowledged point is present exactly once, with its value.
// SUNDIAL_CRASH_ITERATIONS raises the number of kills (default 20) for a
// soak; SUNDIAL_SEED replays a run.
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "storage/crash_points.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

constexpr int kSeries = 16;

// Starts the writer, kills it with SIGKILL delay_ms after it is ready (or
// after it started, if early: then the kill may hit recovery), and returns
// the highest acknowledged batch (or first - 1).
int64_t RunAndKill(const std::string& dir, int64_t first, int delay_ms, bool early,
                   std::string* err) {
  int out[2];
  if (pipe(out) != 0) std::abort();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    const std::string first_s = std::to_string(first), series_s = std::to_string(kSeries);
    execl(SUNDIAL_CRASH_WRITER, SUNDIAL_CRASH_WRITER, dir.c_str(), first_s.c_str(),
          series_s.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string data;
  char buf[4096];
  const auto start = std::chrono::steady_clock::now();
  auto deadline = start + std::chrono::milliseconds(early ? delay_ms : 60000);
  bool killed = false, ready = early;
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (!ready && data.find("ready\n") != std::string::npos) {
      ready = true;
      deadline = now + std::chrono::milliseconds(delay_ms);
    }
    if (!killed && now >= deadline) {
      kill(pid, SIGKILL);
      killed = true;
    }
    int timeout = 50;
    if (!killed) {
      timeout = static_cast<int>(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count()) + 1;
    }
    pollfd p{out[0], POLLIN, 0};
    const int r = poll(&p, 1, timeout);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(out[0], buf, sizeof(buf));
    if (n <= 0) break;  // EOF: the writer is gone
    data.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
    *err = "writer exited by itself, status " + std::to_string(status);
  }
  int64_t acked = first - 1;
  size_t pos = 0;
  while ((pos = data.find("ack ", pos)) != std::string::npos) {
    const size_t eol = data.find('\n', pos);
    if (eol == std::string::npos) break;  // a torn last line is not an ack
    acked = std::atoll(data.c_str() + pos + 4);
    pos = eol;
  }
  return acked;
}

// Opens a copy of dir (the original stays as the crash left it) and checks
// every point of batches [0, acked].
void Verify(const std::string& dir, int64_t acked) {
  testing::TempDir copy;
  std::filesystem::copy(dir, copy.path(),
                        std::filesystem::copy_options::recursive |
                            std::filesystem::copy_options::overwrite_existing);
  std::unique_ptr<Storage> db;
  Status s = Storage::Open(testing::CrashOptions(copy.path()), &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int sidx = 0; sidx < kSeries; ++sidx) {
    const std::string host = "h" + std::to_string(sidx);
    TagRef tag{"host", host};
    SeriesId id;
    ASSERT_TRUE(db->ResolveSeries("crash.metric", &tag, 1, &id).ok());
    std::vector<SeriesPoint> want;
    for (int64_t b = 0; b <= acked; ++b) testing::CrashBatch({id}, b, &want);
    std::sort(want.begin(), want.end(),
              [](const SeriesPoint& a, const SeriesPoint& b) { return a.t < b.t; });
    auto got = testing::ReadAll(db.get(), id);
    size_t g = 0;
    for (const SeriesPoint& w : want) {
      while (g < got.size() && got[g].t < w.t) {
        ASSERT_TRUE(got[g].v.BitEquals(testing::CrashValue(sidx, got[g].t)));
        ++g;
      }
      ASSERT_LT(g, got.size()) << "series " << sidx << " lost t=" << w.t << " (acked " << acked
                               << ")";
      ASSERT_EQ(got[g].t, w.t) << "series " << sidx << " lost t=" << w.t;
      ASSERT_TRUE(got[g].v.BitEquals(testing::CrashValue(sidx, w.t)));
      if (g > 0) {
        ASSERT_LT(got[g - 1].t, got[g].t);  // exactly once
      }
      ++g;
    }
  }
}

TEST(StorageCrash, KillNineLosesNoAcknowledgedPoint) {
  const uint64_t seed = testing::TestSeed(std::random_device{}());
  std::mt19937_64 rng(seed);
  const char* iters_env = std::getenv("SUNDIAL_CRASH_ITERATIONS");
  const int iterations = iters_env != nullptr ? std::atoi(iters_env) : 20;
  testing::TempDir dir;
  int64_t acked = -1;
  int progressed = 0;
  for (int i = 0; i < iterations; ++i) {
    const bool early = rng() % 4 == 0;
    const int delay = early ? static_cast<int>(rng() % 100) : 1 + static_cast<int>(rng() % 300);
    std::string err;
    const int64_t now_acked = RunAndKill(dir.path(), acked + 1, delay, early, &err);
    ASSERT_TRUE(err.empty()) << err;
    if (now_acked > acked) ++progressed;
    acked = std::max(acked, now_acked);
    Verify(dir.path(), acked);
    if (HasFatalFailure()) {
      std::printf("failed at iteration %d (kill after %d ms)\n", i, delay);
      return;
    }
  }
  std::printf("%d kills, %lld batches acknowledged\n", iterations,
              static_cast<long long>(acked + 1));
  EXPECT_GE(progressed, iterations / 4);  // the kills hit a writing process
}

}  // namespace
}  // namespace sundial::storage
