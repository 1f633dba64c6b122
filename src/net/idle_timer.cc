#include "sundial/net/idle_timer.h"

namespace sundial::net {

void IdleTimer::Start(std::chrono::milliseconds idle_timeout,
                      std::chrono::milliseconds check_period, const std::shared_ptr<void>& owner,
                      WakeFn on_wake) {
  idle_timeout_ = idle_timeout.count() > 0 ? idle_timeout : std::chrono::milliseconds(0);
  check_period_ = check_period.count() > 0 ? check_period : std::chrono::milliseconds(0);
  owner_ = owner;
  on_wake_ = std::move(on_wake);
  started_ = true;
  last_ = Clock::now();
  const Clock::time_point next = NextWake(last_);
  if (next != Clock::time_point::max()) Arm(next);
}

void IdleTimer::WakeBy(Clock::time_point at) {
  if (!started_ || cancelled_ || at >= armed_at_) return;
  Arm(at);
}

void IdleTimer::Cancel() {
  cancelled_ = true;
  armed_at_ = Clock::time_point::max();
  timer_.cancel();  // the pending wait completes and drops the owner
}

IdleTimer::Clock::time_point IdleTimer::NextWake(Clock::time_point now) const {
  Clock::time_point next = Clock::time_point::max();
  if (idle_timeout_.count() > 0) next = last_ + idle_timeout_;
  if (check_period_.count() > 0 && now + check_period_ < next) next = now + check_period_;
  return next;
}

void IdleTimer::Arm(Clock::time_point at) {
  std::shared_ptr<void> owner = owner_.lock();
  if (owner == nullptr) return;
  armed_at_ = at;
  const uint64_t generation = ++generation_;
  timer_.expires_at(at);  // a wait still pending completes with operation_aborted
  // Only the pending wait holds the owner, so a stopped io_context that
  // destroys the handler also lets the connection go.
  timer_.async_wait([this, owner = std::move(owner), generation](const std::error_code& ec) {
    if (ec || cancelled_ || generation != generation_) return;
    armed_at_ = Clock::time_point::max();
    OnWake();
  });
}

void IdleTimer::OnWake() {
  const Clock::time_point now = Clock::now();
  const bool idle = idle_timeout_.count() > 0 && now >= last_ + idle_timeout_;
  // on_wake may call WakeBy() (arming the timer) or Cancel().
  if (on_wake_(now, idle) || cancelled_) return;
  if (idle) last_ = now;  // kept open: count it as activity
  const Clock::time_point next = NextWake(now);
  if (next != Clock::time_point::max()) WakeBy(next);
}

}  // namespace sundial::net
