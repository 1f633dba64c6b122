#include "sundial/common/mutex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

namespace sundial {
namespace {

struct Counter {
  Mutex mu;
  int n GUARDED_BY(mu) = 0;
  void Bump() {
    MutexLock l(&mu);
    ++n;
  }
  int Get() {
    MutexLock l(&mu);
    return n;
  }
};

TEST(Mutex, ExcludesConcurrentWriters) {
  Counter c;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&c] {
      for (int i = 0; i < 10000; ++i) c.Bump();
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.Get(), 40000);
}

TEST(Mutex, TryLockFailsWhileHeld) {
  Mutex mu;
  bool got_while_held = false;
  {
    MutexLock l(&mu);
    std::thread other([&] {
      if (mu.TryLock()) {
        got_while_held = true;
        mu.Unlock();
      }
    });
    other.join();
  }
  EXPECT_FALSE(got_while_held);
  bool got_after = false;
  if (mu.TryLock()) {
    got_after = true;
    mu.Unlock();
  }
  EXPECT_TRUE(got_after);
}

TEST(SharedMutex, ReadersShareWritersExclude) {
  SharedMutex mu;
  {
    ReaderLock first(&mu);
    // A second reader gets in while the first holds the lock.
    std::thread second([&] { ReaderLock r(&mu); });
    second.join();
  }
  int value = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) {
        WriterLock w(&mu);
        ++value;
      }
    });
  }
  for (auto& t : threads) t.join();
  ReaderLock r(&mu);
  EXPECT_EQ(value, 20000);
}

TEST(CondVar, WaitForTimesOutWithoutSignal) {
  Mutex mu;
  CondVar cv(&mu);
  MutexLock l(&mu);
  EXPECT_FALSE(cv.WaitFor(std::chrono::milliseconds(20)));
}

TEST(CondVar, SignalWakesWaiter) {
  Mutex mu;
  CondVar cv(&mu);
  bool ready = false;  // guarded by mu
  std::thread producer([&] {
    MutexLock l(&mu);
    ready = true;
    cv.SignalAll();
  });
  {
    MutexLock l(&mu);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!ready && std::chrono::steady_clock::now() < deadline) cv.WaitUntil(deadline);
    EXPECT_TRUE(ready);
  }
  producer.join();
}

}  // namespace
}  // namespace sundial
