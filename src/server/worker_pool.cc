#include "worker_pool.h"

#include <exception>

#include <asio/post.hpp>
#include <spdlog/spdlog.h>

namespace sundial::server {

WorkerPool::WorkerPool(size_t num_threads) : size_(num_threads), pool_(num_threads) {}

WorkerPool::~WorkerPool() { Stop(); }

void WorkerPool::Submit(std::function<void()> job) {
  asio::post(pool_, [job = std::move(job)] {
    try {
      job();
    } catch (const std::exception& e) {
      spdlog::error("worker job threw: {}", e.what());
    } catch (...) {
      spdlog::error("worker job threw an unknown exception");
    }
  });
}

void WorkerPool::Stop() {
  pool_.stop();
  pool_.join();
}

}  // namespace sundial::server
