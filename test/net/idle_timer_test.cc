#include "sundial/net/idle_timer.h"

#include <chrono>
#include <memory>

#include <asio/io_context.hpp>
#include <gtest/gtest.h>

namespace sundial::net {
namespace {

using Clock = IdleTimer::Clock;
using std::chrono::milliseconds;

TEST(IdleTimer, FiresAfterTheIdleTimeoutUnlessTouched) {
  asio::io_context ctx;
  IdleTimer timer(ctx.get_executor());
  auto owner = std::make_shared<int>(0);
  const Clock::time_point start = Clock::now();
  Clock::time_point fired;
  timer.Start(milliseconds(100), owner, [&] {
    fired = Clock::now();
    return true;
  });
  // Touch at 60 ms moves the idle deadline to 160 ms.
  asio::steady_timer touch(ctx, milliseconds(60));
  touch.async_wait([&](const std::error_code&) { timer.Touch(); });
  owner.reset();  // the pending wait keeps it
  ctx.run_for(std::chrono::seconds(2));
  EXPECT_GE(fired - start, milliseconds(155));
  EXPECT_LT(fired - start, milliseconds(1000));
}

TEST(IdleTimer, WakeByWakesEarlierAndPeriodicChecksRun) {
  asio::io_context ctx;
  IdleTimer timer(ctx.get_executor());
  auto owner = std::make_shared<int>(0);
  const Clock::time_point start = Clock::now();
  int wakes = 0;
  Clock::time_point first;
  timer.Start(std::chrono::hours(1), milliseconds(50), owner,
              [&](Clock::time_point now, bool idle) {
                EXPECT_FALSE(idle);
                if (wakes++ == 0) first = now;
                return wakes == 4;  // closes after four wakes
              });
  timer.WakeBy(start + milliseconds(10));
  ctx.run_for(std::chrono::seconds(2));
  EXPECT_EQ(wakes, 4);
  EXPECT_LT(first - start, milliseconds(45));
}

TEST(IdleTimer, CancelStopsWakes) {
  asio::io_context ctx;
  IdleTimer timer(ctx.get_executor());
  auto owner = std::make_shared<int>(0);
  int wakes = 0;
  timer.Start(milliseconds(20), milliseconds(10), owner, [&](Clock::time_point, bool) {
    ++wakes;
    timer.Cancel();
    return false;
  });
  ctx.run_for(milliseconds(300));
  EXPECT_EQ(wakes, 1);
}

}  // namespace
}  // namespace sundial::net
