// IdleTimer: closes a connection that has seen no traffic for a while.
//
// Why not re-arm a timer on every read: cancelling and re-arming an asio
// timer takes a lock in the timer queue. Touch() only stores a time; the
// timer wakes once per timeout period and compares.
//
// Thread-safety: none; use on the owning connection's executor only.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include <asio/any_io_executor.hpp>
#include <asio/steady_timer.hpp>

namespace sundial::net {

class IdleTimer {
 public:
  using Clock = std::chrono::steady_clock;

  explicit IdleTimer(const asio::any_io_executor& executor) : timer_(executor) {}

  // Starts watching. on_idle runs on the executor once the connection was
  // idle for `timeout`; it returns true if it closed the connection, or
  // false to keep it (e.g. a reply is still being computed), which counts
  // as activity. Not called after Cancel(). A zero timeout disables the
  // timer. `owner` keeps the connection alive while waiting.
  void Start(std::chrono::milliseconds timeout, std::shared_ptr<void> owner,
             std::function<bool()> on_idle);
  void Touch() {
    if (timeout_.count() > 0) last_ = Clock::now();
  }
  void Cancel();

 private:
  void Arm(Clock::time_point at, std::shared_ptr<void> owner);

  asio::steady_timer timer_;
  std::chrono::milliseconds timeout_{0};
  Clock::time_point last_;
  std::function<bool()> on_idle_;
  bool cancelled_ = false;
};

}  // namespace sundial::net
