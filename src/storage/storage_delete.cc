// StorageImpl's deletion (tombstones.h): a delete is written to the WAL
// first (the commit point), then removed from the series' pages in memory
// under the exclusive append gate, and recorded as tombstones for the
// sealed pages of the partitions that hold the series. The maintenance
// mutex is held throughout: no page is written meanwhile, so every page on
// disk predates the delete and every point appended after it is still in
// memory, past the tombstones' page-file ends.
#include <algorithm>

#include "storage/record_log.h"
#include "storage/storage_impl.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {
namespace {

constexpr Timestamp kHourMs = 3600000;
constexpr size_t kReportBatch = 4096;

bool Deleted(Timestamp t, Timestamp start, Timestamp end) { return t >= start && t <= end; }

// The points of page outside [start, end], in page order.
std::vector<Sample> Kept(std::string_view page, Timestamp start, Timestamp end) {
  std::vector<Sample> out;
  compress::PageIterator it(page);
  while (it.Next()) {
    if (!Deleted(it.t(), start, end)) out.push_back(Sample{it.t(), it.v()});
  }
  return out;
}

Timestamp FloorHour(Timestamp t) {
  const Timestamp r = t % kHourMs;
  return r < 0 ? t - r - kHourMs : t - r;
}

}  // namespace

void StorageImpl::RemoveFromMemory(SeriesId id, MemSeries* s, Timestamp start, Timestamp end) {
  SealParked(id, s);  // the filter below works on sealed pages
  auto overlaps = [&](const compress::PageBuilder& b) {
    return !b.empty() && b.min_t() <= end && b.max_t() >= start;
  };
  if (s->head && overlaps(*s->head)) {
    const std::vector<Sample> kept = Kept(s->head->data(), start, end);
    const int64_t cap = s->head->capacity();
    s->head->Reset();
    head_bytes_.fetch_sub(cap - s->head->capacity(), std::memory_order_relaxed);
    for (const Sample& p : kept) {
      const uint32_t before = s->head->capacity();
      if (!s->head->Append(p.t, p.v)) {
        FreezeHead(id, s);
        const bool ok = s->head->Append(p.t, p.v);  // the first point always fits
        (void)ok;
      }
      if (s->head->capacity() > before) {
        head_bytes_.fetch_add(s->head->capacity() - before, std::memory_order_relaxed);
      }
    }
    s->hint_page.store(s->head->data().data(), std::memory_order_relaxed);
    s->hint_used.store(s->head->size(), std::memory_order_relaxed);
  }
  if (s->ooo && overlaps(*s->ooo)) {
    const std::vector<Sample> kept = Kept(s->ooo->data(), start, end);  // arrival order
    const Timestamp ooo_start = s->ooo_start, ooo_end = s->ooo_end;
    s->ooo.reset();
    for (const Sample& p : kept) AppendOoo(id, s, ooo_start, ooo_end, p.t, p.v);
    ooo_points_.fetch_sub(kept.size(), std::memory_order_relaxed);  // not new points
  }
  for (PendingPage* p = s->pending; p != nullptr;) {
    PendingPage* const next = p->next;
    if (p->min_t <= end && p->max_t >= start) FilterPending(s, p, start, end);
    p = next;
  }
}

void StorageImpl::FilterPending(MemSeries* s, PendingPage* p, Timestamp start, Timestamp end) {
  const std::vector<Sample> kept = Kept(p->bytes, start, end);
  if (!kept.empty()) {
    // A subset of a page fits a page of the largest size (fewer points,
    // a shorter span).
    compress::PageBuilder b(compress::kMaxPageSize);
    for (const Sample& q : kept) {
      if (!b.Append(q.t, q.v)) {
        AddWarning("delete: a pending page could not be re-encoded; its points are kept");
        return;
      }
    }
    p->bytes.assign(b.data().data(), b.data().size());
    p->min_t = b.min_t();
    p->max_t = b.max_t();
    return;
  }
  // Nothing left: unlink it from the series and from the write queue.
  Unlink(s, p);
  {
    MutexLock lock(&pending_mu_);
    auto it = std::find(pending_.begin(), pending_.end(), p);
    if (it != pending_.end()) pending_.erase(it);
  }
  PendingDone(p);
  delete p;
}

PartitionFiles StorageImpl::FilesOf(Partition* part) {
  PartitionFiles f;
  f.part_start = part->start();
  f.page_file_id = part->PageFileId();
  f.has_cold = part->ColdId(&f.cold_id);
  return f;
}

Status StorageImpl::AddTombstones(const DeleteOp& op) {
  for (const auto& r : partitions_->Ranges()) {
    if (r.second - 1 < op.start || r.first > op.end) continue;
    PartitionRef part;
    SUNDIAL_RETURN_IF_ERROR(partitions_->Locate(r.first, &part));
    const PartitionFiles f = FilesOf(part.get());
    const uint64_t page_end = part->Mark();
    for (SeriesId id : op.series) {
      if (!part->HasSeries(id)) continue;
      Tombstone t;
      t.series = id;
      t.start = std::max(op.start, r.first);
      t.end = std::min(op.end, r.second - 1);
      t.part_start = r.first;
      t.page_file_id = f.page_file_id;
      t.page_end = page_end;
      t.has_cold = f.has_cold;
      t.cold_id = f.cold_id;
      tombstones_.Add(t);
    }
  }
  return Status::OK();
}

void StorageImpl::ReportDeleted(const DeleteOp& op) {
  LateAppendObserver* const observer = options_.late_observer;
  if (observer == nullptr) return;
  const auto ranges = partitions_->Ranges();
  if (ranges.empty()) return;
  // Hours that may hold data and lie below the observer's watermark.
  // The watermark starts at the lowest Timestamp (nothing is late yet):
  // compare before subtracting, which would overflow there.
  const Timestamp watermark = observer->late_watermark();
  if (watermark <= ranges.front().first) return;
  const Timestamp lo = std::max(op.start, ranges.front().first);
  const Timestamp hi = std::min({op.end, ranges.back().second - 1, watermark - 1});
  if (lo > hi) return;
  std::vector<SeriesPoint> batch;
  for (SeriesId id : op.series) {
    for (Timestamp h = FloorHour(lo); h <= hi; h += kHourMs) {
      batch.push_back(SeriesPoint{id, std::max(h, lo), Value::Int(0)});
      if (batch.size() == kReportBatch) {
        observer->OnLateAppend(batch.data(), batch.size());
        batch.clear();
      }
    }
  }
  if (!batch.empty()) observer->OnLateAppend(batch.data(), batch.size());
}

bool StorageImpl::HasNoPoints(SeriesId id) {
  auto it = NewIterator(id, kMinTimestamp + 1, kMaxTimestamp - 1);
  return !it->Next() && it->status().ok();
}

Status StorageImpl::ApplyDelete(const DeleteOp& op, size_t* hidden) {
  SUNDIAL_RETURN_IF_ERROR(AddTombstones(op));
  deletes_.fetch_add(1, std::memory_order_relaxed);
  ReportDeleted(op);
  if (!op.hide_empty) return Status::OK();
  std::vector<SeriesId> empty;
  for (SeriesId id : op.series) {
    if (HasNoPoints(id)) empty.push_back(id);
  }
  // A point appended since the delete is still in memory (no page was
  // written meanwhile): such a series stays listed. Checked under the
  // gate so that no append slips in between.
  WriterLock gate(&gate_);
  for (SeriesId id : empty) {
    MemSeries* s = series_.Get(id);
    SpinLockGuard lock(&s->lock);
    const bool mem_empty = s->pending == nullptr && (!s->head || s->head->empty()) &&
                           (!s->ooo || s->ooo->empty());
    if (!mem_empty) continue;
    tombstones_.Hide(id);
    if (hidden != nullptr) ++*hidden;
  }
  return Status::OK();
}

Status StorageImpl::DeleteRange(const std::vector<SeriesId>& ids, Timestamp start,
                                Timestamp end, bool hide_empty, size_t* hidden) {
  if (hidden != nullptr) *hidden = 0;
  if (start > end) return Status::InvalidArgument("delete: start after end");
  DeleteOp op;
  op.start = start;
  op.end = end;
  op.hide_empty = hide_empty;
  for (SeriesId id : ids) {
    if (series_.Get(id) != nullptr) op.series.push_back(id);
  }
  if (op.series.empty()) return Status::OK();
  SUNDIAL_RETURN_IF_ERROR(WriteBlocked());
  MutexLock run(&maint_run_mu_);
  (void)WritePending();  // fewer pages to filter in memory; what fails stays pending
  std::string payload, rec;
  EncodeDeleteOp(op, &payload);
  AppendLogRecord(&rec, kWalDeleteRecord, payload);
  {
    WriterLock gate(&gate_);
    uint64_t lsn = 0;
    const Status ws = wal_->Append(rec, &lsn);
    if (!ws.ok()) {
      EnterReadOnly(ws);
      return ws;  // nothing was removed
    }
    for (SeriesId id : op.series) {
      MemSeries* s = series_.Get(id);
      SpinLockGuard lock(&s->lock);
      RemoveFromMemory(id, s, start, end);
    }
  }
  // Acknowledged deletes survive a crash, whatever wal_sync says.
  SUNDIAL_RETURN_IF_ERROR(wal_->Sync());
  return ApplyDelete(op, hidden);
}

void StorageImpl::ReplayDelete(std::string_view payload, bool* ok) {
  DeleteOp op;
  if (!DecodeDeleteOp(payload, &op)) {
    *ok = false;
    return;
  }
  std::vector<SeriesId> known;
  for (SeriesId id : op.series) {
    MemSeries* s = series_.Get(id);
    if (s == nullptr) continue;
    SpinLockGuard lock(&s->lock);
    RemoveFromMemory(id, s, op.start, op.end);
    known.push_back(id);
  }
  op.series.swap(known);
  const Status s = ApplyDelete(op, nullptr);
  if (!s.ok()) AddWarning("WAL replay: a delete could not be applied: " + s.ToString());
}

void StorageImpl::ReplayDeleteState(std::string_view payload, bool* ok) {
  std::vector<Tombstone> list;
  std::vector<SeriesId> hidden;
  if (!DecodeDeleteState(payload, &list, &hidden)) {
    *ok = false;
    return;
  }
  tombstones_.Reset(std::move(list), hidden);
}

void StorageImpl::AppendDeleteState(std::string* rec) {
  // Tombstones of partitions that are gone (retention) cover nothing.
  const auto ranges = partitions_->Ranges();
  tombstones_.RemoveIf([&](const Tombstone& t) {
    return !std::binary_search(
        ranges.begin(), ranges.end(), std::make_pair(t.part_start, Timestamp{0}),
        [](const auto& a, const auto& b) { return a.first < b.first; });
  });
  if (tombstones_.empty() && !tombstones_.any_hidden()) return;
  std::string payload;
  EncodeDeleteState(tombstones_.All(), tombstones_.Hidden(), &payload);
  AppendLogRecord(rec, kWalDeleteStateRecord, payload);
}

}  // namespace sundial::storage
