// StorageImpl's read path: iterators and the last point of a series.
#include <algorithm>

#include "storage/read_ahead.h"
#include "storage/series_iterator.h"
#include "storage/storage_impl.h"

namespace sundial::storage {

std::unique_ptr<SampleIterator> StorageImpl::NewIterator(SeriesId id, Timestamp start,
                                                         Timestamp end) {
  return OpenIterator(id, start, end, true, nullptr);
}

std::unique_ptr<SampleIterator> StorageImpl::NewHintedIterator(SeriesId id, Timestamp start,
                                                               Timestamp end,
                                                               const ReadAhead* kept) {
  return OpenIterator(id, start, end, false, kept);
}

std::unique_ptr<SampleIterator> StorageImpl::OpenIterator(SeriesId id, Timestamp start,
                                                          Timestamp end, bool read_ahead,
                                                          const ReadAhead* kept) {
  std::vector<SeriesIterator::Source> sources;
  MemSeries* s = series_.Get(id);
  if (s == nullptr || start > end) {
    return std::make_unique<SeriesIterator>(id, start, end, std::move(sources),
                                            std::vector<PartitionRef>(), &damage_, &pages_read_);
  }
  // Memory first: a pending page that is written meanwhile then shows up
  // twice (harmless), never zero times.
  uint32_t mem_ooo = 0;
  std::vector<SeriesIterator::Source> mem;
  auto add_mem = [&](std::string_view bytes, Timestamp lo, Timestamp hi, bool ooo, bool raw) {
    if (hi < start || lo > end) return;
    SeriesIterator::Source src;
    src.min_t = lo;
    src.max_t = hi;
    src.priority = ooo ? ++mem_ooo : 0;
    src.bytes.assign(bytes.data(), bytes.size());
    src.arrival_order = raw;
    mem.push_back(std::move(src));
  };
  {
    SpinLockGuard lock(&s->lock);
    std::vector<const PendingPage*> pending;
    PendingOldestFirst(s, &pending);
    for (const PendingPage* p : pending) {
      if (p->open) {
        add_mem(p->open->data(), p->min_t, p->max_t, true, true);  // parked, arrival order
      } else {
        add_mem(p->bytes, p->min_t, p->max_t, (p->flags & kPageFlagOutOfOrder) != 0, false);
      }
    }
    if (s->head && !s->head->empty()) {
      add_mem(s->head->data(), s->head->min_t(), s->head->max_t(), false, false);
    }
    if (s->ooo && !s->ooo->empty()) {
      add_mem(s->ooo->data(), s->ooo->min_t(), s->ooo->max_t(), true, true);
    }
  }
  uint32_t sealed_ooo = 0;
  std::vector<PageRef> refs;
  std::vector<PartitionRef> pins = partitions_->Overlapping(start, end);
  const bool tombstones = !tombstones_.empty();
  for (auto& part : pins) {
    refs.clear();
    part->PagesOf(id, start, end, &refs);
    if (read_ahead) part->WillNeed(refs);
    const PartitionFiles files = tombstones ? FilesOf(part.get()) : PartitionFiles();
    for (const PageRef& r : refs) {
      SeriesIterator::Source src;
      src.min_t = r.min_t;
      src.max_t = r.max_t;
      src.priority = (r.flags & kPageFlagOutOfOrder) ? ++sealed_ooo : 0;
      src.part = part.get();
      src.ref = r;
      if (tombstones) src.deleted = tombstones_.RangesFor(id, files, r.cold, r.offset);
      sources.push_back(std::move(src));
    }
  }
  // Memory's out-of-order pages are newer than every sealed one.
  for (auto& src : mem) {
    if (src.priority != 0) src.priority += sealed_ooo;
    sources.push_back(std::move(src));
  }
  return std::make_unique<SeriesIterator>(id, start, end, std::move(sources), std::move(pins),
                                          &damage_, &pages_read_, kept);
}

uint64_t StorageImpl::WillRead(const std::vector<SeriesId>& ids, Timestamp start, Timestamp end,
                               uint64_t max_bytes, size_t* covered,
                               std::shared_ptr<const ReadAhead>* kept) {
  *covered = 0;
  if (kept != nullptr) kept->reset();
  if (ids.empty() || start > end || max_bytes == 0) return 0;
  uint64_t left = max_bytes;
  size_t all = ids.size();
  auto keep = kept != nullptr ? std::make_shared<ReadAhead>() : nullptr;
  for (auto& part : partitions_->Overlapping(start, end)) {
    if (left == 0) {  // this partition's data was not asked for
      all = 0;
      break;
    }
    size_t cold = 0, pages = 0;
    left -= part->WillReadCold(ids, left, &cold);
    left -= part->WillReadPages(ids, start, end, left, &pages, keep.get());
    all = std::min({all, cold, pages});
    if (keep != nullptr) keep->Pin(std::move(part));
  }
  *covered = all;
  if (keep != nullptr && !keep->empty()) *kept = std::move(keep);
  return max_bytes - left;
}

Status StorageImpl::LastPoint(SeriesId id, Sample* out) {
  MemSeries* s = series_.Get(id);
  if (s == nullptr) return Status::NotFound("unknown series id", std::to_string(id));
  Timestamp best = kMinTimestamp;
  {
    SpinLockGuard lock(&s->lock);
    for (const PendingPage* p = s->pending; p != nullptr; p = p->next) {
      best = std::max(best, p->max_t);
    }
    if (s->head && !s->head->empty()) best = std::max(best, s->head->max_t());
    if (s->ooo && !s->ooo->empty()) best = std::max(best, s->ooo->max_t());
  }
  const auto ranges = partitions_->Ranges();
  for (auto r = ranges.rbegin(); r != ranges.rend(); ++r) {
    if (best != kMinTimestamp && r->second - 1 <= best) break;  // nothing newer there
    PartitionRef part;
    if (!partitions_->Locate(r->first, &part).ok()) continue;
    best = std::max(best, part->MaxTimeOf(id));
  }
  if (best == kMinTimestamp) return Status::NotFound("series has no points");
  auto it = NewIterator(id, best, best);
  if (it->Next()) {
    out->t = it->t();
    out->v = it->v();
    return Status::OK();
  }
  if (!it->status().ok()) return it->status();
  // The newest point was deleted (tombstones.h): scan back partition by
  // partition for the newest one left.
  bool found = false;
  for (auto r = ranges.rbegin(); r != ranges.rend() && !found; ++r) {
    if (r->first > best) continue;
    auto scan = NewIterator(id, r->first, std::min(best, r->second - 1));
    while (scan->Next()) {
      out->t = scan->t();
      out->v = scan->v();
      found = true;
    }
    if (!scan->status().ok()) return scan->status();
  }
  return found ? Status::OK() : Status::NotFound("series has no points");
}

}  // namespace sundial::storage
