#include "watchdog.h"
#include "sundial/common/thread_name.h"

#include <cassert>
#include <memory>

#include <asio/post.hpp>
#include <spdlog/spdlog.h>

namespace sundial::server {

namespace {

// One round's answers. Shared with the posted no-ops because a context that
// is stuck may run its no-op after the round (or the Watchdog) has ended.
struct Round {
  Mutex mu;
  CondVar cv{&mu};
  size_t pending GUARDED_BY(mu) = 0;
};

}  // namespace

Watchdog::Watchdog(const SdNotifier* notifier, net::IoContextPool* pool,
                   std::chrono::microseconds interval)
    : notifier_(notifier), pool_(pool), interval_(interval) {
  assert(interval_.count() > 0);
}

Watchdog::~Watchdog() { Stop(); }

void Watchdog::Start() {
  assert(!thread_.joinable());
  thread_ = std::thread([this] {
    SetThreadName("sd-watchdog");
    Loop();
  });
}

void Watchdog::Stop() {
  {
    MutexLock l(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable()) thread_.join();
}

void Watchdog::Loop() {
  for (;;) {
    const auto start = std::chrono::steady_clock::now();
    if (IoThreadsAlive(interval_)) {
      const Status s = notifier_->Notify("WATCHDOG=1");
      if (!s.ok()) spdlog::warn("watchdog: {}", s.ToString());
    }
    MutexLock l(&mu_);
    const auto next = start + interval_;
    while (!stop_ && std::chrono::steady_clock::now() < next) cv_.WaitUntil(next);
    if (stop_) return;
  }
}

bool Watchdog::IoThreadsAlive(std::chrono::microseconds wait) {
  auto round = std::make_shared<Round>();
  {
    MutexLock l(&round->mu);
    round->pending = pool_->size();
  }
  for (size_t i = 0; i < pool_->size(); ++i) {
    asio::post(pool_->context(i), [round] {
      MutexLock l(&round->mu);
      if (--round->pending == 0) round->cv.SignalAll();
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + wait;
  MutexLock l(&round->mu);
  while (round->pending > 0 && std::chrono::steady_clock::now() < deadline) {
    round->cv.WaitUntil(deadline);
  }
  if (round->pending > 0) {
    spdlog::warn("watchdog: {} of {} I/O threads did not answer within {} ms; not pinging",
                 round->pending, pool_->size(),
                 std::chrono::duration_cast<std::chrono::milliseconds>(wait).count());
    return false;
  }
  return true;
}

}  // namespace sundial::server
