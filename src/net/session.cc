#include "sundial/net/session.h"

#include <vector>

namespace sundial::net {

bool ConnectionManager::Add(const std::shared_ptr<Session>& session, bool enforce_limit) {
  MutexLock lock(&mu_);
  if (stopped_) return false;
  if (enforce_limit && max_ != 0 && sessions_.size() >= max_) return false;
  sessions_.emplace(session.get(), session);
  if (enforce_limit) ++total_;
  return true;
}

void ConnectionManager::Remove(const Session* session) {
  MutexLock lock(&mu_);
  sessions_.erase(session);
}

void ConnectionManager::StopAll() {
  std::vector<std::shared_ptr<Session>> live;
  {
    MutexLock lock(&mu_);
    stopped_ = true;
    for (auto& [ptr, weak] : sessions_) {
      if (auto s = weak.lock()) live.push_back(std::move(s));
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

}  // namespace sundial::net
