#include "sundial/common/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/thread_executor.h"

namespace sundial {
namespace {

using testing::ThreadExecutor;

// Keeps posted jobs until RunAll(): a pool too busy to help in time.
class HeldExecutor final : public Executor {
 public:
  void Post(std::function<void()> job) override { jobs_.push_back(std::move(job)); }
  size_t held() const { return jobs_.size(); }
  void RunAll() {
    for (auto& j : jobs_) j();
    jobs_.clear();
  }

 private:
  std::vector<std::function<void()>> jobs_;
};

TEST(ParallelFor, EveryIndexRunsExactlyOnce) {
  ThreadExecutor ex(3);
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{1000}}) {
    std::vector<std::atomic<int>> calls(n);
    ParallelFor(&ex, 3, n, [&](size_t i) { calls[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(calls[i].load(), 1) << "n=" << n << " i=" << i;
  }
}

TEST(ParallelFor, HelpersRunIndexesAtTheSameTime) {
  // Index 0 and index 1 each wait (up to 10 s) for the other to start:
  // both start only if a helper runs one while the caller runs the other.
  ThreadExecutor ex(1);
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;
  std::thread::id ids[2];
  bool met[2] = {false, false};
  ParallelFor(&ex, 1, 2, [&](size_t i) {
    std::unique_lock<std::mutex> l(mu);
    ids[i] = std::this_thread::get_id();
    ++started;
    cv.notify_all();
    met[i] = cv.wait_for(l, std::chrono::seconds(10), [&] { return started == 2; });
  });
  EXPECT_TRUE(met[0]);
  EXPECT_TRUE(met[1]);
  EXPECT_NE(ids[0], ids[1]);
}

TEST(ParallelFor, WithoutAnExecutorTheCallerRunsEverything) {
  const std::thread::id me = std::this_thread::get_id();
  int calls = 0;
  bool elsewhere = false;
  ParallelFor(nullptr, 4, 50, [&](size_t) {
    ++calls;
    elsewhere = elsewhere || std::this_thread::get_id() != me;
  });
  EXPECT_EQ(calls, 50);
  EXPECT_FALSE(elsewhere);
}

TEST(ParallelFor, HelpersThatStartLateDoNothing) {
  HeldExecutor ex;
  int calls = 0;
  {
    std::vector<int> data(10, 1);  // gone before the helpers run
    ParallelFor(&ex, 2, data.size(), [&](size_t i) { calls += data[i]; });
  }
  EXPECT_EQ(calls, 10);
  EXPECT_EQ(ex.held(), 2u);
  ex.RunAll();  // must not call the finished loop's fn (ASan would see it)
  EXPECT_EQ(calls, 10);
}

TEST(ParallelFor, NoMoreHelpersThanIndexesToShare) {
  HeldExecutor ex;
  ParallelFor(&ex, 8, 3, [](size_t) {});
  EXPECT_EQ(ex.held(), 2u);
  ex.RunAll();
}

TEST(ParallelFor, AnExceptionIsRethrownAfterTheOtherIndexesRan) {
  ThreadExecutor ex(2);
  std::atomic<int> calls{0};
  EXPECT_THROW(ParallelFor(&ex, 2, 100,
                           [&](size_t i) {
                             calls.fetch_add(1);
                             if (i == 5) throw std::runtime_error("index 5");
                           }),
               std::runtime_error);
  EXPECT_EQ(calls.load(), 100);
}

}  // namespace
}  // namespace sundial
