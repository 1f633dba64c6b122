// IoContextPool: N asio io_contexts, each run by one thread of its own.
//
// Why one io_context per thread (asio's "server2" shape) rather than one
// shared context: a connection is pinned to one context for its whole life,
// so its handlers never run concurrently and the hot telnet read path needs
// no strand and no lock. Connections are spread over the contexts round robin.
//
// A handler that throws does not end the process: the exception is given to
// the pool's ExceptionHandler and the thread goes on running its context (as
// asio allows: run() may be called again after a handler threw). What the
// handler owned is released as the exception unwinds, so a connection whose
// handler threw is closed; the other connections are not touched.
//
// Thread-safety: Next() and Stop() may be called from any thread. Start() and
// Join() are called by the owner only.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include <asio/executor_work_guard.hpp>
#include <asio/io_context.hpp>

namespace sundial::net {

class IoContextPool {
 public:
  // Called on the I/O thread with the what() of an exception a handler
  // threw. Must not throw.
  using ExceptionHandler = std::function<void(const char* what)>;

  // num_threads == 0 means one per hardware thread (at least 1).
  // busy_poll: how long a thread polls for more events after the last one
  // before it blocks (0: it blocks at once). on_exception may be empty (the
  // exception is then dropped silently).
  explicit IoContextPool(size_t num_threads,
                         std::chrono::microseconds busy_poll = std::chrono::microseconds(0),
                         ExceptionHandler on_exception = nullptr);
  ~IoContextPool();  // Stop() + Join()

  IoContextPool(const IoContextPool&) = delete;
  IoContextPool& operator=(const IoContextPool&) = delete;

  // Starts one thread per context. REQUIRES: called once.
  void Start();
  // Lets the contexts run out of work guards and stops them; pending
  // handlers are abandoned. Idempotent.
  void Stop();
  // Waits for every thread to exit. Idempotent.
  void Join();

  // The next context, round robin. The reference stays valid for the life
  // of the pool.
  asio::io_context& Next();
  asio::io_context& context(size_t i) { return *contexts_[i]; }
  size_t size() const { return contexts_.size(); }

 private:
  using WorkGuard = asio::executor_work_guard<asio::io_context::executor_type>;

  const std::chrono::microseconds busy_poll_;
  const ExceptionHandler on_exception_;
  std::vector<std::unique_ptr<asio::io_context>> contexts_;
  std::vector<WorkGuard> guards_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_{0};
};

}  // namespace sundial::net
