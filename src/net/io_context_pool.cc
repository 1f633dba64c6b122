#include "sundial/net/io_context_pool.h"
#include "sundial/common/thread_name.h"

namespace sundial::net {
namespace {

// Runs c until it is stopped, polling for up to spin after each event
// before blocking again.
void RunBusyPolling(asio::io_context* c, std::chrono::microseconds spin) {
  using Clock = std::chrono::steady_clock;
  while (c->run_one() > 0) {
    Clock::time_point deadline = Clock::now() + spin;
    while (!c->stopped()) {
      if (c->poll() > 0) {
        deadline = Clock::now() + spin;
      } else if (Clock::now() >= deadline) {
        break;
      } else {
        // Let a runnable thread (the client, another I/O thread) have this
        // core meanwhile; returns at once when there is none.
        std::this_thread::yield();
      }
    }
  }
}

}  // namespace

IoContextPool::IoContextPool(size_t num_threads, std::chrono::microseconds busy_poll)
    : busy_poll_(busy_poll) {
  if (num_threads == 0) {
    num_threads = std::thread::hardware_concurrency();
    if (num_threads == 0) num_threads = 1;
  }
  for (size_t i = 0; i < num_threads; ++i) {
    // Hint 1: each context is run by exactly one thread.
    contexts_.push_back(std::make_unique<asio::io_context>(1));
    guards_.push_back(asio::make_work_guard(*contexts_.back()));
  }
}

IoContextPool::~IoContextPool() {
  Stop();
  Join();
}

void IoContextPool::Start() {
  for (auto& ctx : contexts_) {
    asio::io_context* c = ctx.get();
    if (busy_poll_.count() > 0) {
      threads_.emplace_back([c, spin = busy_poll_] {
        SetThreadName("sd-io");
        RunBusyPolling(c, spin);
      });
    } else {
      threads_.emplace_back([c] {
        SetThreadName("sd-io");
        c->run();
      });
    }
  }
}

void IoContextPool::Stop() {
  for (auto& g : guards_) g.reset();
  for (auto& ctx : contexts_) ctx->stop();
}

void IoContextPool::Join() {
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

asio::io_context& IoContextPool::Next() {
  size_t i = next_.fetch_add(1, std::memory_order_relaxed) % contexts_.size();
  return *contexts_[i];
}

}  // namespace sundial::net
