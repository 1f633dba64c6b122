// WorkerPool: a few threads for work that must not run on I/O threads
// (queries, waiting for a WAL fsync).
//
// Why: a long query on an I/O thread would stall the ingest of every
// connection pinned to that thread (DESIGN.md §1). Why it can grow: a
// streamed answer waits for its client to read, and a client that stops
// reading would otherwise hold a worker until the write timeout; a few such
// clients would stall every other query. A job that is about to wait on
// something outside the pool says so (WaitScope), and the pool adds a spare
// thread while there are more waiting jobs than spares, up to max_spare.
//
// Thread-safety: every method from any thread. Jobs submitted after Stop()
// are dropped.
#pragma once

#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include <asio/post.hpp>
#include <asio/thread_pool.hpp>

#include "sundial/common/executor.h"
#include "sundial/common/mutex.h"

namespace sundial::server {

class WorkerPool final : public Executor {
 public:
  // Called on the worker thread with the what() of an exception that
  // escaped a job. Must not throw.
  using ExceptionHandler = std::function<void(const char* what)>;

  // REQUIRES: num_threads > 0. max_spare: threads the pool may add while
  // jobs wait on slow clients (0 = never add any). on_exception: empty logs
  // the exception as an error (a test harness may want to stop instead).
  WorkerPool(size_t num_threads, size_t max_spare, ExceptionHandler on_exception = nullptr);
  ~WorkerPool() override;  // Stop()

  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs job() on a worker thread, some time later. Job is any callable,
  // move-only ones included. Jobs must not block on other jobs of the pool,
  // and report errors through their own channel. An exception that escapes
  // a job is a bug: it goes to the ExceptionHandler and the job's captures
  // are released (the responder of a request whose handler threw answers
  // 500 "The request was dropped without a reply" as it is destroyed); the
  // process and the other jobs go on.
  template <typename Job>
  void Submit(Job job) {
    asio::post(pool_, [this, job = std::move(job)]() mutable noexcept {
      try {
        job();
      } catch (const std::exception& e) {
        on_exception_(e.what());
      } catch (...) {
        on_exception_("an exception that is not a std::exception");
      }
    });
  }

  // Executor: Submit(job).
  void Post(std::function<void()> job) override { Submit(std::move(job)); }

  // Marks the calling job as waiting on something outside the pool for as
  // long as the scope lives. While more jobs wait than there are spare
  // threads, and fewer than max_spare spares exist, a spare thread is added;
  // spares stay until Stop() (idle, they cost a stack and no CPU), so the
  // pool keeps size() threads free for the other jobs as long as at most
  // max_spare jobs wait at once.
  class WaitScope {
   public:
    explicit WaitScope(WorkerPool* pool) : pool_(pool) { pool_->BeginWait(); }
    ~WaitScope() { pool_->EndWait(); }
    WaitScope(const WaitScope&) = delete;
    WaitScope& operator=(const WaitScope&) = delete;

   private:
    WorkerPool* const pool_;
  };

  // Waits for running jobs to finish, drops queued ones, joins the threads
  // (spares included). Idempotent.
  void Stop();

  size_t size() const { return size_; }
  // Spare threads added so far.
  size_t spare_threads() const;

 private:
  void BeginWait();
  void EndWait();

  const size_t size_;
  const size_t max_spare_;
  const ExceptionHandler on_exception_;
  asio::thread_pool pool_;
  mutable Mutex mu_;
  size_t waiting_ GUARDED_BY(mu_) = 0;
  bool stopped_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> spares_ GUARDED_BY(mu_);
};

}  // namespace sundial::server
