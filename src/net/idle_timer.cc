#include "sundial/net/idle_timer.h"

namespace sundial::net {

void IdleTimer::Start(std::chrono::milliseconds timeout, std::shared_ptr<void> owner,
                      std::function<bool()> on_idle) {
  if (timeout.count() <= 0) return;
  timeout_ = timeout;
  on_idle_ = std::move(on_idle);
  last_ = Clock::now();
  Arm(last_ + timeout_, std::move(owner));
}

void IdleTimer::Cancel() {
  cancelled_ = true;
  timer_.cancel();  // the pending wait completes and drops the owner
}

void IdleTimer::Arm(Clock::time_point at, std::shared_ptr<void> owner) {
  timer_.expires_at(at);
  // Only the pending wait holds the owner, so a stopped io_context that
  // destroys the handler also lets the connection go.
  timer_.async_wait([this, owner = std::move(owner)](const std::error_code& ec) mutable {
    if (ec || cancelled_) return;
    const Clock::time_point now = Clock::now();
    if (now >= last_ + timeout_) {
      if (on_idle_()) return;
      last_ = now;  // kept open: count it as activity
    }
    Arm(last_ + timeout_, std::move(owner));
  });
}

}  // namespace sundial::net
