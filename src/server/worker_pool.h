// WorkerPool: a few threads for work that must not run on I/O threads
// (queries, waiting for a WAL fsync).
//
// Why: a long query on an I/O thread would stall the ingest of every
// connection pinned to that thread (DESIGN.md §1).
//
// Thread-safety: Submit() from any thread. Jobs submitted after Stop() are
// dropped.
#pragma once

#include <cstddef>
#include <utility>

#include <asio/post.hpp>
#include <asio/thread_pool.hpp>

namespace sundial::server {

class WorkerPool {
 public:
  // REQUIRES: num_threads > 0.
  explicit WorkerPool(size_t num_threads);
  ~WorkerPool();  // Stop()

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs job() on a worker thread, some time later. Job is any callable,
  // move-only ones included. Jobs must not block on other jobs of the pool,
  // and report errors through their own channel: a job never throws (an
  // escaping exception ends the process).
  template <typename Job>
  void Submit(Job job) {
    asio::post(pool_, [job = std::move(job)]() mutable noexcept { job(); });
  }

  // Waits for running jobs to finish, drops queued ones, joins the threads.
  // Idempotent.
  void Stop();

  size_t size() const { return size_; }

 private:
  const size_t size_;
  asio::thread_pool pool_;
};

}  // namespace sundial::server
