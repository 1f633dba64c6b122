#include "storage/name_table.h"

#include <cstring>

namespace sundial::storage {
namespace {
constexpr size_t kArenaBlock = 64 * 1024;
}  // namespace

std::string_view NameTable::Store(std::string_view name) {
  if (name.size() > kArenaBlock / 4) {
    // Large names get a block of their own so they do not waste arena room.
    blocks_.emplace_back(new char[name.size()]);
    std::memcpy(blocks_.back().get(), name.data(), name.size());
    arena_bytes_ += name.size();
    const std::string_view v(blocks_.back().get(), name.size());
    // Keep the current arena block last so that later small names use it.
    if (blocks_.size() >= 2 && block_size_ > 0) std::swap(blocks_[blocks_.size() - 2], blocks_.back());
    return v;
  }
  if (block_size_ == 0 || block_used_ + name.size() > block_size_) {
    blocks_.emplace_back(new char[kArenaBlock]);
    block_size_ = kArenaBlock;
    block_used_ = 0;
    arena_bytes_ += kArenaBlock;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, name.data(), name.size());
  block_used_ += name.size();
  return std::string_view(dst, name.size());
}

bool NameTable::Insert(std::string_view name, uint32_t uid) {
  if (by_name_.count(name) != 0) return false;
  if (uid < by_uid_.size() && !by_uid_[uid].empty()) return false;
  const std::string_view stored = Store(name);
  by_name_.emplace(stored, uid);
  if (uid >= by_uid_.size()) by_uid_.resize(uid + 1);
  by_uid_[uid] = stored;
  if (uid >= next_uid_) next_uid_ = uid + 1;
  return true;
}

bool NameTable::Rename(uint32_t uid, std::string_view new_name) {
  if (uid == 0 || uid >= by_uid_.size() || by_uid_[uid].empty()) return false;
  if (by_name_.count(new_name) != 0) return false;
  by_name_.erase(by_uid_[uid]);
  const std::string_view stored = Store(new_name);
  by_name_.emplace(stored, uid);
  by_uid_[uid] = stored;
  return true;
}

size_t NameTable::MemoryUsage() const {
  return arena_bytes_ + by_uid_.capacity() * sizeof(std::string_view) +
         by_name_.size() * (sizeof(std::string_view) + sizeof(uint32_t) + 2 * sizeof(void*)) +
         by_name_.bucket_count() * sizeof(void*);
}

}  // namespace sundial::storage
