#include "sundial/net/io_context_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include <asio/post.hpp>
#include <asio/steady_timer.hpp>

namespace sundial::net {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

// Posts rounds of handlers with pauses longer and shorter than the busy
// poll between them, and checks that every handler runs on its context's
// thread and that the pool stops and joins.
void RunRounds(microseconds busy_poll) {
  IoContextPool pool(2, busy_poll);
  pool.Start();
  std::atomic<int> ran{0};
  int posted = 0;
  for (int round = 0; round < 20; ++round) {
    for (size_t i = 0; i < pool.size(); ++i) {
      asio::post(pool.context(i), [&ran] { ran.fetch_add(1); });
      ++posted;
    }
    // Alternately inside and beyond the polling window.
    std::this_thread::sleep_for(round % 2 == 0 ? microseconds(10) : milliseconds(3));
  }
  for (int i = 0; i < 2000 && ran.load() < posted; ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_EQ(ran.load(), posted);
  pool.Stop();
  pool.Join();
}

TEST(IoContextPool, RunsPostedWorkWithoutBusyPolling) { RunRounds(microseconds(0)); }

TEST(IoContextPool, RunsPostedWorkWhileBusyPolling) { RunRounds(microseconds(1000)); }

// A handler that throws is reported, and its thread goes on running the
// context: the handlers posted after it still run, with and without busy
// polling.
TEST(IoContextPool, AThrowingHandlerIsReportedAndTheContextRunsOn) {
  for (const microseconds busy_poll : {microseconds(0), microseconds(200)}) {
    std::atomic<int> reported{0}, ran{0};
    IoContextPool pool(1, busy_poll, [&reported](const char* what) {
      EXPECT_STREQ(what, "bad handler");
      reported.fetch_add(1);
    });
    pool.Start();
    for (int i = 0; i < 3; ++i) {
      asio::post(pool.context(0), [] { throw std::runtime_error("bad handler"); });
      asio::post(pool.context(0), [&ran] { ran.fetch_add(1); });
    }
    for (int i = 0; i < 2000 && ran.load() < 3; ++i) std::this_thread::sleep_for(milliseconds(1));
    EXPECT_EQ(ran.load(), 3);
    EXPECT_EQ(reported.load(), 3);
    pool.Stop();
    pool.Join();
  }
}

// A timer due well after the polling window still fires: a thread that
// stopped polling blocks in the reactor and wakes for it.
TEST(IoContextPool, TimersFireAfterThePollingWindow) {
  IoContextPool pool(1, microseconds(200));
  pool.Start();
  std::atomic<bool> fired{false};
  asio::steady_timer timer(pool.context(0), milliseconds(20));
  timer.async_wait([&fired](const std::error_code& ec) {
    if (!ec) fired.store(true);
  });
  for (int i = 0; i < 2000 && !fired.load(); ++i) std::this_thread::sleep_for(milliseconds(1));
  EXPECT_TRUE(fired.load());
  pool.Stop();
  pool.Join();
}

}  // namespace
}  // namespace sundial::net
