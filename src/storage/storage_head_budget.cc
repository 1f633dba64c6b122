// StorageImpl::SealForBudget: keeps the open (head) pages of all series
// within storage.head_memory.
//
// Why: every series fills one open page in memory, up to page_size bytes.
// With 100k series whose pages fill slowly (one point every 10 s), the open
// pages alone hold ~50 MB. Sealing the largest of them early bounds that by
// configuration; the cost is more, smaller pages on disk (each page has a
// 20-byte header and an index entry) until compaction rewrites the
// partition into cold blocks.
//
// How: page buffers grow in fixed steps (PageBuilder::CapacityFor), so
// one walk counts the heads of each buffer size and picks the largest size
// S such that sealing every head holding S bytes or more brings the total
// to 3/4 of the budget (only heads whose page is at least half full count);
// a second walk seals those heads. It runs at most once a second. A sealed
// head's buffer goes back to its initial size; a series idle since the
// last slow tick drops its builder altogether (its next point makes a new
// one). The walk also sets head_bytes_ to its sum, undoing any drift of
// the append path's running count.
#include <map>

#include "storage/storage_impl.h"

namespace sundial::storage {

void StorageImpl::SealForBudget() {
  // Heads whose page is under half full are never sealed: each page costs
  // a header and an index entry in memory, so with more series than the
  // budget allows at half a page each, the budget is exceeded rather than
  // the pages made ever smaller.
  const uint32_t smallest = options_.page_size / 2;
  std::map<uint32_t, uint64_t> by_cap;  // buffer bytes -> sealable heads holding them
  uint64_t total = 0;
  series_.ForEach([&](SeriesId, MemSeries* s) {
    SpinLockGuard lock(&s->lock);
    if (!s->head) return;
    if (s->head->size() >= smallest) ++by_cap[s->head->capacity()];
    total += s->head->capacity();
  });
  head_bytes_.store(static_cast<int64_t>(total), std::memory_order_relaxed);
  const uint64_t budget = options_.head_memory_bytes;
  if (total <= budget || by_cap.empty()) return;
  // Sealing a head of c bytes frees c - kInitialCapacity at least.
  const uint64_t goal = budget / 4 * 3;
  const uint32_t initial = compress::PageBuilder::kInitialCapacity;
  uint32_t seal_from = 0;
  uint64_t after = total;
  for (auto it = by_cap.rbegin(); it != by_cap.rend(); ++it) {
    seal_from = it->first;
    after -= (it->first - initial) * it->second;
    if (after <= goal) break;
  }
  if (seal_from == 0) return;  // no head is large enough to seal
  const uint32_t tick = tick_.load(std::memory_order_relaxed);
  uint64_t sealed = 0;
  series_.ForEach([&](SeriesId id, MemSeries* s) {
    SpinLockGuard lock(&s->lock);
    if (!s->head || s->head->capacity() < seal_from || s->head->size() < smallest) return;
    FreezeHead(id, s);
    ++sealed;
    if (s->last_tick != tick) {
      head_bytes_.fetch_sub(s->head->capacity(), std::memory_order_relaxed);
      s->head.reset();
      s->hint_builder.store(nullptr, std::memory_order_relaxed);
    }
  });
  heads_sealed_early_.fetch_add(sealed, std::memory_order_relaxed);
}

}  // namespace sundial::storage
