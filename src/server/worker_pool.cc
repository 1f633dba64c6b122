#include "worker_pool.h"

#include <spdlog/spdlog.h>

namespace sundial::server {

WorkerPool::WorkerPool(size_t num_threads) : size_(num_threads), pool_(num_threads) {}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::LogEscaped(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    spdlog::error("worker job threw: {}", ex.what());
  } catch (...) {
    spdlog::error("worker job threw an unknown exception");
  }
}

void WorkerPool::Stop() {
  pool_.stop();
  pool_.join();
}

}  // namespace sundial::server
