#include "worker_pool.h"

namespace sundial::server {

WorkerPool::WorkerPool(size_t num_threads) : size_(num_threads), pool_(num_threads) {}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Stop() {
  pool_.stop();
  pool_.join();
}

}  // namespace sundial::server
