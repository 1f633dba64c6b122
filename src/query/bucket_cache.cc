#include "sundial/query/bucket_cache.h"

#include <utility>

namespace sundial::query {
namespace {

// Bookkeeping per entry besides its buckets: list node, index slot, key.
constexpr size_t kEntryOverhead = 128;

}  // namespace

size_t BucketCache::BytesOf(const Entry& e) {
  return kEntryOverhead + e.buckets.capacity() * sizeof(BucketCache::Bucket) +
         (e.value_text.empty() ? 0 : e.value_text.capacity()) + e.text_len.capacity();
}

BucketCache::BucketCache(size_t max_bytes)
    : max_bytes_(max_bytes), slots_(new std::atomic<uint32_t>[kSlots]) {
  for (size_t i = 0; i < kSlots; ++i) slots_[i].store(0, std::memory_order_relaxed);
}

Timestamp BucketCache::AdvanceWatermark(Timestamp now_ms) {
  const Timestamp want = now_ms - kLagMs;
  Timestamp seen = watermark_.load();
  while (want > seen && !watermark_.compare_exchange_weak(seen, want)) {
  }
  return watermark_.load();
}

BucketCache::Stamp BucketCache::StampOf(SeriesId series, uint64_t removals) const {
  // Acquire: pairs with OnLateAppend's release, so a reader that sees a new
  // stamp also sees the late point that caused it.
  return Stamp{slots_[SlotOf(series)].load(std::memory_order_acquire), removals};
}

void BucketCache::OnLateAppend(const storage::SeriesPoint* points, size_t n) {
  const Timestamp mark = watermark_.load();
  // One new value per batch: every stamp it touches differs from any value
  // that slot had before (until 2^32 batches wrap it around).
  uint32_t seq = 0;
  for (size_t i = 0; i < n; ++i) {
    if (points[i].t >= mark) continue;
    if (seq == 0) seq = late_seq_.fetch_add(1) + 1;
    slots_[SlotOf(points[i].series)].store(seq, std::memory_order_release);
  }
}

bool BucketCache::Find(const Key& key, const Stamp& stamp, EntryPtr* out) {
  MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end() || !(it->second->stamp == stamp)) {
    ++misses_;
    return false;
  }
  lru_.splice(lru_.begin(), lru_, it->second);
  *out = it->second->entry;
  ++hits_;
  return true;
}

void BucketCache::Put(const Key& key, const Stamp& stamp, Entry e) {
  const size_t bytes = BytesOf(e);
  EntryPtr entry = std::make_shared<const Entry>(std::move(e));
  MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  if (bytes > max_bytes_) return;
  EvictOver(max_bytes_ - bytes);
  lru_.push_front(Node{key, stamp, std::move(entry), bytes});
  index_.emplace(key, lru_.begin());
  bytes_ += bytes;
}

void BucketCache::EvictOver(size_t limit) {
  while (bytes_ > limit && !lru_.empty()) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
}

BucketCache::Counters BucketCache::counters() const {
  MutexLock lock(&mu_);
  return Counters{hits_, misses_, index_.size(), bytes_};
}

}  // namespace sundial::query
