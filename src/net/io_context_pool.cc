#include "sundial/net/io_context_pool.h"

#include <exception>
#include <utility>

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

// Runs c until it is stopped; an exception out of a handler goes to
// on_exception and the context runs on.
void RunContext(asio::io_context* c, std::chrono::microseconds spin,
                const IoContextPool::ExceptionHandler& on_exception) {
  for (;;) {
    try {
      if (spin.count() > 0) {
        RunBusyPolling(c, spin);
      } else {
        c->run();
      }
      return;  // stopped, or out of work
    } catch (const std::exception& e) {
      if (on_exception) on_exception(e.what());
    } catch (...) {
      if (on_exception) on_exception("an exception that is not a std::exception");
    }
  }
}

}  // namespace

IoContextPool::IoContextPool(size_t num_threads, std::chrono::microseconds busy_poll,
                             ExceptionHandler on_exception)
    : busy_poll_(busy_poll), on_exception_(std::move(on_exception)) {
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
    threads_.emplace_back([this, c] {
      SetThreadName("sd-io");
      RunContext(c, busy_poll_, on_exception_);
    });
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
