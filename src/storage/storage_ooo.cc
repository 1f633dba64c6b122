// StorageImpl's out-of-order pages: the open one, sealing it, and parking
// it while late points go to other partitions (see PendingPage).
#include <algorithm>
#include <vector>

#include "storage/storage_impl.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {

void StorageImpl::AppendOoo(SeriesId id, MemSeries* s, Timestamp start, Timestamp end,
                            Timestamp t, Value v) {
  ooo_points_.fetch_add(1, std::memory_order_relaxed);
  if (s->ooo && s->ooo_start != start) ParkOoo(id, s);
  if (!s->ooo) UnparkOoo(s, start);
  if (!s->ooo) s->ooo = NewPageBuilder();
  if (s->ooo->empty()) {
    s->ooo_start = start;
    s->ooo_end = end;
  }
  if (!s->ooo->Append(t, v)) {
    FreezeOoo(id, s);
    s->ooo = NewPageBuilder();
    s->ooo_start = start;
    s->ooo_end = end;
    const bool ok = s->ooo->Append(t, v);
    (void)ok;
  }
}

void StorageImpl::FreezeOoo(SeriesId id, MemSeries* s) {
  if (s->ooo && !s->ooo->empty()) SealOoo(id, s, *s->ooo, s->ooo_start);
  s->ooo.reset();
}

void StorageImpl::SealOoo(SeriesId id, MemSeries* s, const compress::PageBuilder& b,
                          Timestamp part_start) {
  // Sort by time, keep the last write of each timestamp, and re-encode.
  std::vector<Sample> pts;
  pts.reserve(b.count());
  compress::PageIterator it(b.data());
  while (it.Next()) pts.push_back(Sample{it.t(), it.v()});
  std::stable_sort(pts.begin(), pts.end(),
                   [](const Sample& x, const Sample& y) { return x.t < y.t; });
  compress::PageBuilder out(options_.page_size);
  for (size_t i = 0; i < pts.size(); ++i) {
    if (i + 1 < pts.size() && pts[i + 1].t == pts[i].t) continue;  // a later write follows
    if (!out.Append(pts[i].t, pts[i].v)) {
      AddPending(id, s, out.data(), kPageFlagOutOfOrder, part_start);
      out.Reset();
      const bool ok = out.Append(pts[i].t, pts[i].v);
      (void)ok;
    }
  }
  if (!out.empty()) AddPending(id, s, out.data(), kPageFlagOutOfOrder, part_start);
}

void StorageImpl::ParkOoo(SeriesId id, MemSeries* s) {
  if (!s->ooo || s->ooo->empty()) {
    s->ooo.reset();
    return;
  }
  const uint64_t cost = sizeof(PendingPage) + s->ooo->MemoryUsage();
  if (parked_bytes_.load(std::memory_order_relaxed) + cost > options_.ooo_park_budget_bytes) {
    FreezeOoo(id, s);
    return;
  }
  auto* p = new PendingPage;
  p->series = id;
  p->flags = kPageFlagOutOfOrder;
  p->cost = static_cast<uint32_t>(cost);
  p->part_start = s->ooo_start;
  p->part_end = s->ooo_end;
  p->min_t = s->ooo->min_t();
  p->max_t = s->ooo->max_t();
  p->open = std::move(s->ooo);
  p->next = s->pending;
  if (s->pending != nullptr) s->pending->newer = p;
  s->pending = p;
  parked_bytes_.fetch_add(cost, std::memory_order_relaxed);
}

void StorageImpl::UnparkOoo(MemSeries* s, Timestamp start) {
  for (PendingPage* p = s->pending; p != nullptr; p = p->next) {
    if (!p->open || p->part_start != start) continue;
    Unlink(s, p);
    s->ooo = std::move(p->open);
    s->ooo_start = p->part_start;
    s->ooo_end = p->part_end;
    parked_bytes_.fetch_sub(p->cost, std::memory_order_relaxed);
    delete p;
    return;
  }
}

void StorageImpl::SealParked(SeriesId id, MemSeries* s, Timestamp cutoff) {
  for (PendingPage* p = s->pending; p != nullptr;) {
    PendingPage* next = p->next;
    if (p->open && p->part_end <= cutoff) {
      // Its sealed pages go to the newest end of the list: no out-of-order
      // page of its partition is newer than a parked one.
      Unlink(s, p);
      SealOoo(id, s, *p->open, p->part_start);
      parked_bytes_.fetch_sub(p->cost, std::memory_order_relaxed);
      delete p;
    }
    p = next;
  }
}

void StorageImpl::Unlink(MemSeries* s, PendingPage* p) {
  if (p->newer != nullptr) {
    p->newer->next = p->next;
  } else {
    s->pending = p->next;
  }
  if (p->next != nullptr) p->next->newer = p->newer;
  p->next = p->newer = nullptr;
}

}  // namespace sundial::storage
