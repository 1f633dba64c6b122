#include "sundial/net/idle_timer.h"

namespace sundial::net {

void IdleTimer::Start(std::chrono::milliseconds timeout, std::shared_ptr<void> owner,
                      std::function<void()> on_idle) {
  if (timeout.count() <= 0) return;
  timeout_ = timeout;
  owner_ = std::move(owner);
  on_idle_ = std::move(on_idle);
  last_ = Clock::now();
  Arm(last_ + timeout_);
}

void IdleTimer::Cancel() {
  cancelled_ = true;
  std::error_code ignored;
  timer_.cancel();
  // Drop the owner when the pending wait completes (it holds a copy).
}

void IdleTimer::Arm(Clock::time_point at) {
  timer_.expires_at(at);
  // The handler keeps the owner alive; it drops it once it stops re-arming.
  timer_.async_wait([this, owner = owner_](const std::error_code& ec) {
    if (ec || cancelled_) {
      owner_.reset();
      return;
    }
    const Clock::time_point deadline = last_ + timeout_;
    if (Clock::now() >= deadline) {
      owner_.reset();
      if (on_idle_) on_idle_();
      return;
    }
    Arm(deadline);
  });
}

}  // namespace sundial::net
