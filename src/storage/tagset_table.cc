#include "storage/tagset_table.h"

namespace sundial::storage {
namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

}  // namespace

uint64_t TagsetTable::Hash(const UidPair* pairs, size_t n) {
  uint64_t h = Mix(0, n);
  for (size_t i = 0; i < n; ++i) {
    h = Mix(h, (static_cast<uint64_t>(pairs[i].first) << 32) | pairs[i].second);
  }
  return h;
}

bool TagsetTable::Equals(uint32_t id, const UidPair* pairs, size_t n) const {
  const View v = Get(id);
  if (v.size != n) return false;
  for (size_t i = 0; i < n; ++i) {
    if (v.words[2 * i] != pairs[i].first || v.words[2 * i + 1] != pairs[i].second) return false;
  }
  return true;
}

uint32_t TagsetTable::Find(const UidPair* pairs, size_t n) const {
  if (index_.empty()) return kNone;
  const size_t mask = index_.size() - 1;
  for (size_t i = static_cast<size_t>(Hash(pairs, n)) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = index_[i];
    if (slot == 0) return kNone;
    if (Equals(slot - 1, pairs, n)) return slot - 1;
  }
}

uint32_t TagsetTable::Intern(const UidPair* pairs, size_t n) {
  const uint32_t found = Find(pairs, n);
  if (found != kNone) return found;
  const auto id = static_cast<uint32_t>(offsets_.size());
  offsets_.push_back(static_cast<uint32_t>(words_.size()));
  words_.push_back(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    words_.push_back(pairs[i].first);
    words_.push_back(pairs[i].second);
  }
  if ((static_cast<uint64_t>(offsets_.size())) * 10 > static_cast<uint64_t>(index_.size()) * 7) {
    Grow();
  } else {
    Insert(id, Hash(pairs, n));
  }
  return id;
}

void TagsetTable::Insert(uint32_t id, uint64_t hash) {
  const size_t mask = index_.size() - 1;
  size_t i = static_cast<size_t>(hash) & mask;
  while (index_[i] != 0) i = (i + 1) & mask;
  index_[i] = id + 1;
}

void TagsetTable::Grow() {
  index_.assign(index_.empty() ? 64 : index_.size() * 2, 0);
  std::vector<UidPair> pairs;
  for (uint32_t id = 0; id < offsets_.size(); ++id) {
    const View v = Get(id);
    pairs.resize(v.size);
    for (uint32_t i = 0; i < v.size; ++i) pairs[i] = v[i];
    Insert(id, Hash(pairs.data(), pairs.size()));
  }
}

size_t TagsetTable::MemoryUsage() const {
  return (words_.capacity() + offsets_.capacity() + index_.capacity()) * sizeof(uint32_t);
}

}  // namespace sundial::storage
