#include "worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace sundial::server {
namespace {

using std::chrono::milliseconds;

// A gate that jobs wait on until the test opens it (bounded waits only).
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  void Open() {
    std::lock_guard<std::mutex> l(mu);
    open = true;
    cv.notify_all();
  }
  bool Wait() {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, std::chrono::seconds(10), [&] { return open; });
  }
};

bool WaitFor(const std::atomic<int>& n, int want) {
  for (int i = 0; i < 1000 && n.load() < want; ++i) std::this_thread::sleep_for(milliseconds(5));
  return n.load() >= want;
}

// Jobs that wait inside a WaitScope do not hold up the others: with one
// thread and two waiting jobs, a third job still runs.
TEST(WorkerPool, WaitingJobsGetSpareThreads) {
  WorkerPool pool(1, 4);
  Gate gate;
  std::atomic<int> waiting{0}, ran{0};
  for (int i = 0; i < 2; ++i) {
    pool.Submit([&] {
      WorkerPool::WaitScope w(&pool);
      ++waiting;
      EXPECT_TRUE(gate.Wait());
    });
  }
  ASSERT_TRUE(WaitFor(waiting, 2));
  pool.Submit([&] { ++ran; });
  EXPECT_TRUE(WaitFor(ran, 1));
  EXPECT_EQ(pool.spare_threads(), 2u);
  gate.Open();
  pool.Stop();
}

// Without spares (max_spare 0) a waiting job does hold its thread: the
// other job runs only after the wait ends.
TEST(WorkerPool, NoSparesMeansWaitingHoldsTheThread) {
  WorkerPool pool(1, 0);
  Gate gate;
  std::atomic<int> waiting{0}, ran{0};
  pool.Submit([&] {
    WorkerPool::WaitScope w(&pool);
    ++waiting;
    EXPECT_TRUE(gate.Wait());
  });
  ASSERT_TRUE(WaitFor(waiting, 1));
  pool.Submit([&] { ++ran; });
  std::this_thread::sleep_for(milliseconds(100));
  EXPECT_EQ(ran.load(), 0);
  gate.Open();
  EXPECT_TRUE(WaitFor(ran, 1));
  EXPECT_EQ(pool.spare_threads(), 0u);
  pool.Stop();
}

// Spares are capped, reused by later waits, and joined by Stop().
TEST(WorkerPool, SparesAreCappedAndReused) {
  WorkerPool pool(2, 3);
  for (int round = 0; round < 3; ++round) {
    Gate gate;
    std::atomic<int> waiting{0}, done{0};
    for (int i = 0; i < 6; ++i) {
      pool.Submit([&] {
        WorkerPool::WaitScope w(&pool);
        ++waiting;
        EXPECT_TRUE(gate.Wait());
        ++done;
      });
    }
    // 2 threads + 3 spares: five jobs wait, the sixth is queued.
    ASSERT_TRUE(WaitFor(waiting, 5));
    std::this_thread::sleep_for(milliseconds(50));
    EXPECT_EQ(waiting.load(), 5);
    EXPECT_EQ(pool.spare_threads(), 3u);
    gate.Open();
    ASSERT_TRUE(WaitFor(done, 6));
    std::this_thread::sleep_for(milliseconds(20));  // the jobs leave their scopes
  }
  EXPECT_EQ(pool.spare_threads(), 3u);
  pool.Stop();
  pool.Stop();  // idempotent
}

// A job that throws is reported to the pool's handler and the pool runs the
// other jobs; the job's captures are released (a request's responder then
// answers 500 as it is destroyed).
TEST(WorkerPool, AThrowingJobIsReportedAndThePoolGoesOn) {
  std::atomic<int> reported{0}, ran{0};
  WorkerPool pool(1, 0, [&reported](const char* what) {
    EXPECT_STREQ(what, "bad job");
    ++reported;
  });
  auto held = std::make_shared<int>(0);
  pool.Submit([held] { throw std::runtime_error("bad job"); });
  pool.Submit([&ran] { ++ran; });
  ASSERT_TRUE(WaitFor(ran, 1));
  EXPECT_EQ(reported.load(), 1);
  for (int i = 0; i < 1000 && held.use_count() > 1; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(held.use_count(), 1);
  pool.Stop();
}

}  // namespace
}  // namespace sundial::server
