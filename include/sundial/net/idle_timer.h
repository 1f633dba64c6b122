// IdleTimer: one asio timer per connection for all of its timeouts: idle
// (no traffic for a while) and the deadlines the connection asks for
// (a request head due by a time, a write that makes no progress).
//
// Why not re-arm a timer on every read: cancelling and re-arming an asio
// timer takes a lock in the timer queue. Touch() only stores a time; the
// timer wakes at the idle deadline or after check_period, whichever comes
// first, and the connection compares. WakeBy() re-arms only when the timer
// would otherwise wake later than asked, which is at most once per wake.
//
// Thread-safety: none; use on the owning connection's executor only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>

#include <asio/any_io_executor.hpp>
#include <asio/steady_timer.hpp>

namespace sundial::net {

class IdleTimer {
 public:
  using Clock = std::chrono::steady_clock;
  // on_wake(now, idle): `idle` says the connection saw no Touch() for the
  // idle timeout. Returns true if it closed the connection (the timer then
  // stops); false keeps it open, and after an idle wake counts as activity.
  using WakeFn = std::function<bool(Clock::time_point now, bool idle)>;

  explicit IdleTimer(const asio::any_io_executor& executor) : timer_(executor) {}

  // Starts watching. on_wake runs on the executor when the connection was
  // idle for `idle_timeout` (0: never idle), at least every `check_period`
  // (0: no periodic wake), and at the times asked for with WakeBy(). Not
  // called after Cancel(). `owner` is kept alive by the pending wait only.
  void Start(std::chrono::milliseconds idle_timeout, std::chrono::milliseconds check_period,
             const std::shared_ptr<void>& owner, WakeFn on_wake);
  void Start(std::chrono::milliseconds idle_timeout, const std::shared_ptr<void>& owner,
             std::function<bool()> on_idle) {
    Start(idle_timeout, std::chrono::milliseconds(0), owner,
          [f = std::move(on_idle)](Clock::time_point, bool idle) { return idle ? f() : false; });
  }
  // Records activity (a read or a write).
  void Touch() {
    if (idle_timeout_.count() > 0) last_ = Clock::now();
  }
  // Makes on_wake run no later than `at` (it may run earlier). No effect
  // before Start() or after Cancel().
  void WakeBy(Clock::time_point at);
  void Cancel();

 private:
  void Arm(Clock::time_point at);
  void OnWake();
  Clock::time_point NextWake(Clock::time_point now) const;

  asio::steady_timer timer_;
  std::chrono::milliseconds idle_timeout_{0};
  std::chrono::milliseconds check_period_{0};
  Clock::time_point last_;
  Clock::time_point armed_at_ = Clock::time_point::max();  // max: not armed
  std::weak_ptr<void> owner_;
  WakeFn on_wake_;
  uint64_t generation_ = 0;  // tells a superseded wait from the current one
  bool started_ = false;
  bool cancelled_ = false;
};

}  // namespace sundial::net
