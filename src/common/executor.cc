#include "sundial/common/executor.h"

#include <atomic>
#include <exception>
#include <memory>

#include "sundial/common/mutex.h"

namespace sundial {
namespace {

// Shared by the caller and its helper jobs; a helper that starts after
// the loop ended finds every index claimed and leaves without calling fn
// (which may then refer to a finished caller's stack).
struct LoopState {
  LoopState(size_t count, const std::function<void(size_t)>& f) : n(count), fn(f) {}

  // Claims and runs indexes until none is left.
  void Work() {
    for (;;) {
      const size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      std::exception_ptr thrown;
      try {
        fn(i);
      } catch (...) {
        thrown = std::current_exception();
      }
      MutexLock lock(&mu);
      if (thrown != nullptr && error == nullptr) error = thrown;
      if (++done == n) all_done.SignalAll();
    }
  }

  const size_t n;
  const std::function<void(size_t)>& fn;
  std::atomic<size_t> next{0};
  Mutex mu;
  CondVar all_done{&mu};
  size_t done GUARDED_BY(mu) = 0;
  std::exception_ptr error GUARDED_BY(mu);  // the first exception fn threw
};

}  // namespace

void ParallelFor(Executor* executor, size_t helpers, size_t n,
                 const std::function<void(size_t)>& fn) {
  if (n == 0) return;
  auto state = std::make_shared<LoopState>(n, fn);
  if (executor != nullptr) {
    // No more helpers than indexes beyond the caller's first.
    const size_t jobs = helpers < n - 1 ? helpers : n - 1;
    for (size_t j = 0; j < jobs; ++j) executor->Post([state] { state->Work(); });
  }
  state->Work();
  std::exception_ptr error;
  {
    MutexLock lock(&state->mu);
    while (state->done != n) state->all_done.Wait();
    error = state->error;
  }
  if (error != nullptr) std::rethrow_exception(error);
}

}  // namespace sundial
