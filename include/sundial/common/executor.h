// Executor: somewhere to run jobs on other threads; ParallelFor: a loop
// whose iterations the calling thread shares with helper jobs.
//
// Why: a query over many series spends its time decoding each series'
// pages, independently of the others. On a machine with more than one core
// the query threads' pool can take part of that work. ParallelFor never
// waits for a helper that has not started: the calling thread runs every
// iteration no helper has claimed, so a busy (or stopped) pool only makes
// the loop sequential, never stuck, and a job of a pool may call it.
//
// Thread-safety: Executor::Post from any thread. ParallelFor runs fn on
// the calling thread and on up to `helpers` others at once.
#pragma once

#include <cstddef>
#include <functional>

namespace sundial {

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs job() on another thread, some time later, or never (after a
  // stop). job must not wait for other jobs of the executor.
  virtual void Post(std::function<void()> job) = 0;
};

// Calls fn(i) once for every i in [0, n), on the calling thread and on up
// to `helpers` jobs posted to executor (null: the calling thread alone),
// and returns when every call has returned. Calls may run in any order and
// at once, so fn must be safe to call concurrently with other indexes.
// If fn throws, the other calls still run and the first exception is
// rethrown here once they all returned.
void ParallelFor(Executor* executor, size_t helpers, size_t n,
                 const std::function<void(size_t)>& fn);

}  // namespace sundial
