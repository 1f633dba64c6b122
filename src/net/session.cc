#include "sundial/net/session.h"

#include <vector>

namespace sundial::net {

ConnectionManager::AddResult ConnectionManager::Add(const std::shared_ptr<Session>& session,
                                                    const asio::ip::address& address,
                                                    bool enforce_limit) {
  std::shared_ptr<Session> evict;
  {
    MutexLock lock(&mu_);
    if (stopped_) return AddResult::kStopped;
    if (enforce_limit) {
      if (limits_.max_per_address != 0) {
        const auto it = per_address_.find(address);
        if (it != per_address_.end() && it->second >= limits_.max_per_address) {
          ++refused_;
          return AddResult::kRefusedAddress;
        }
      }
      // Sessions already stopped to make room do not count: they are going.
      if (limits_.max_connections != 0 &&
          sessions_.size() - evicting_ >= limits_.max_connections) {
        evict = ClaimOldestIdle();
        if (evict == nullptr) {
          ++refused_;
          return AddResult::kRefusedFull;
        }
      }
      ++total_;
    }
    Entry& e = sessions_[session.get()];
    e.session = session;
    e.address = address;
    ++per_address_[address];
  }
  // Outside the lock: Stop() may end in Remove().
  if (evict != nullptr) evict->Stop();
  return AddResult::kAdded;
}

std::shared_ptr<Session> ConnectionManager::ClaimOldestIdle() {
  Entry* best = nullptr;
  std::shared_ptr<Session> best_session;
  int64_t best_since = 0;
  for (auto& [ptr, entry] : sessions_) {
    if (entry.evicting) continue;
    const int64_t since = ptr->idle_since_.load(std::memory_order_relaxed);
    if (since <= 0 || (best != nullptr && since >= best_since)) continue;
    std::shared_ptr<Session> s = entry.session.lock();
    if (s == nullptr) continue;  // being destroyed: Remove() is on its way
    best = &entry;
    best_session = std::move(s);
    best_since = since;
  }
  if (best == nullptr) return nullptr;
  // Claim it only if it is still idle (it may have just become busy).
  int64_t expected = best_since;
  if (!best_session->idle_since_.compare_exchange_strong(expected, -1,
                                                         std::memory_order_relaxed)) {
    return nullptr;
  }
  best->evicting = true;
  ++evicting_;
  ++evicted_;
  return best_session;
}

void ConnectionManager::Remove(const Session* session) {
  MutexLock lock(&mu_);
  const auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (it->second.evicting) --evicting_;
  const auto a = per_address_.find(it->second.address);
  if (a != per_address_.end() && --a->second == 0) per_address_.erase(a);
  sessions_.erase(it);
}

void ConnectionManager::StopAll() {
  std::vector<std::shared_ptr<Session>> live;
  {
    MutexLock lock(&mu_);
    stopped_ = true;
    for (auto& [ptr, entry] : sessions_) {
      if (auto s = entry.session.lock()) live.push_back(std::move(s));
    }
  }
  // Outside the lock: Stop() may end in Remove().
  for (auto& s : live) s->Stop();
}

size_t ConnectionManager::size() const {
  MutexLock lock(&mu_);
  return sessions_.size();
}

uint64_t ConnectionManager::total_accepted() const {
  MutexLock lock(&mu_);
  return total_;
}

uint64_t ConnectionManager::total_refused() const {
  MutexLock lock(&mu_);
  return refused_;
}

uint64_t ConnectionManager::total_evicted() const {
  MutexLock lock(&mu_);
  return evicted_;
}

size_t ConnectionManager::count_for(const asio::ip::address& address) const {
  MutexLock lock(&mu_);
  const auto it = per_address_.find(address);
  return it == per_address_.end() ? 0 : it->second;
}

}  // namespace sundial::net
