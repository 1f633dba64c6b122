#include "sundial/net/io_context_pool.h"

namespace sundial::net {

IoContextPool::IoContextPool(size_t num_threads) {
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
    threads_.emplace_back([c] { c->run(); });
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
