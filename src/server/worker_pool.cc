#include "worker_pool.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "sundial/common/thread_name.h"

namespace sundial::server {

WorkerPool::WorkerPool(size_t num_threads, size_t max_spare, ExceptionHandler on_exception)
    : size_(num_threads),
      max_spare_(max_spare),
      on_exception_(on_exception ? std::move(on_exception) : [](const char* what) {
        spdlog::error("a worker job failed ({}); its request was answered 500", what);
      }),
      pool_(num_threads) {}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::BeginWait() {
  MutexLock l(&mu_);
  ++waiting_;
  if (stopped_ || waiting_ <= spares_.size() || spares_.size() >= max_spare_) return;
  // attach() runs the pool's jobs on this thread until the pool stops.
  spares_.emplace_back([this] {
    SetThreadName("sd-worker+");
    pool_.attach();
  });
}

void WorkerPool::EndWait() {
  MutexLock l(&mu_);
  --waiting_;
}

size_t WorkerPool::spare_threads() const {
  MutexLock l(&mu_);
  return spares_.size();
}

void WorkerPool::Stop() {
  std::vector<std::thread> spares;
  {
    MutexLock l(&mu_);
    stopped_ = true;
    spares.swap(spares_);
  }
  pool_.stop();
  pool_.join();
  for (std::thread& t : spares) {
    if (t.joinable()) t.join();
  }
}

}  // namespace sundial::server
