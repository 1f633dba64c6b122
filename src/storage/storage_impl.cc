#include "storage/storage_impl.h"

#include <algorithm>
#include <iterator>

#include "storage/record_log.h"
#include "sundial/compress/page_iterator.h"
#include "sundial/common/thread_name.h"

namespace sundial::storage {

// ---- SeriesTable ----

SeriesTable::SeriesTable() : blocks_(new std::atomic<MemSeries*>[kMaxBlocks]) {
  for (uint32_t i = 0; i < kMaxBlocks; ++i) blocks_[i].store(nullptr, std::memory_order_relaxed);
}

SeriesTable::~SeriesTable() {
  for (uint32_t b = 0; b < kMaxBlocks; ++b) {
    MemSeries* block = blocks_[b].load(std::memory_order_relaxed);
    if (block == nullptr) continue;
    for (uint32_t i = 0; i < kBlockSize; ++i) {
      for (PendingPage* p = block[i].pending; p != nullptr;) {
        PendingPage* next = p->next;
        delete p;
        p = next;
      }
    }
    delete[] block;
  }
}

bool SeriesTable::Create(SeriesId id) {
  const uint32_t b = id >> kBlockBits;
  if (b >= kMaxBlocks) return false;
  MutexLock lock(&mu_);
  MemSeries* block = blocks_[b].load(std::memory_order_relaxed);
  if (block == nullptr) {
    block = new MemSeries[kBlockSize];
    ++block_count_;
    blocks_[b].store(block, std::memory_order_release);
  }
  block[id & (kBlockSize - 1)].valid.store(true, std::memory_order_release);
  return true;
}

size_t SeriesTable::MemoryUsage() const {
  return kMaxBlocks * sizeof(void*) + block_count_ * kBlockSize * sizeof(MemSeries);
}

// ---- Open and recovery ----

Status Storage::Open(const StorageOptions& options, std::unique_ptr<Storage>* out) {
  std::unique_ptr<StorageImpl> impl;
  SUNDIAL_RETURN_IF_ERROR(StorageImpl::Open(options, NewPosixEnv(), &impl));
  *out = std::move(impl);
  return Status::OK();
}

StorageImpl::StorageImpl(const StorageOptions& options, std::unique_ptr<Env> env)
    : options_(options), env_(std::move(env)) {}

Status StorageImpl::Open(const StorageOptions& options, std::unique_ptr<Env> env,
                         std::unique_ptr<StorageImpl>* out, bool start_maintenance) {
  if (options.data_dir.empty()) return Status::InvalidArgument("storage: data_dir is empty");
  if (options.partition_duration_ms < 1000) {
    return Status::InvalidArgument("storage: partition duration below one second");
  }
  if (options.page_size < compress::kMinPageSize || options.page_size > compress::kMaxPageSize) {
    return Status::InvalidArgument("storage: page_size out of range",
                                   std::to_string(options.page_size));
  }
  std::unique_ptr<StorageImpl> impl(new StorageImpl(options, std::move(env)));
  SUNDIAL_RETURN_IF_ERROR(impl->Recover());
  if (start_maintenance) {
    impl->maint_ = std::thread([p = impl.get()] {
      SetThreadName("sd-maintenance");
      p->MaintenanceLoop();
    });
  }
  *out = std::move(impl);
  return Status::OK();
}

Status StorageImpl::Recover() {
  MutexLock run(&maint_run_mu_);  // nothing else runs yet; it keeps the analysis honest
  const std::string& dir = options_.data_dir;
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(dir));
  RemovePartialSnapshots();  // a crash during a snapshot leaves one
  std::vector<std::string> warnings;
  // A new series' records go into the WAL before any batch that uses it
  // (wal.h, type 8): the batch's fsync covers them.
  auto log_new_series = [this](const std::string& entries) {
    std::string rec;
    AppendLogRecord(&rec, kWalSeriesRecord, entries);
    uint64_t lsn = 0;
    SUNDIAL_RETURN_IF_ERROR(wal_->Append(rec, &lsn));
    uint64_t seen = series_lsn_.load(std::memory_order_relaxed);
    while (lsn > seen && !series_lsn_.compare_exchange_weak(seen, lsn)) {
    }
    return Status::OK();
  };
  dict_ = std::make_unique<SeriesDict>(env_.get(), dir + "/series.log",
                                       [this](SeriesId id) { series_.Create(id); },
                                       options_.max_series, log_new_series);
  SUNDIAL_RETURN_IF_ERROR(dict_->Open(&warnings));
  file_cache_ = std::make_unique<FileCacheEnv>(env_.get(), dir + "/part/",
                                               options_.max_open_files);
  partitions_ = std::make_unique<PartitionSet>(file_cache_.get(), dir + "/part",
                                               options_.partition_duration_ms,
                                               options_.mmap_window_bytes,
                                               options_.max_open_partitions);
  wal_ = std::make_unique<Wal>(env_.get(), dir + "/wal", options_.wal_segment_bytes,
                               options_.wal_retention);
  std::string marks;
  bool have_marks = false;
  SUNDIAL_RETURN_IF_ERROR(wal_->ReadCheckpointMarks(&marks, &have_marks));
  SUNDIAL_RETURN_IF_ERROR(partitions_->Open(&warnings, have_marks ? &marks : nullptr));
  uint64_t corrupt = 0, unknown = 0, unapplied = 0;
  LateAppendObserver* const observer = options_.late_observer;
  const Timestamp late_mark = observer ? observer->late_watermark() : kMinTimestamp;
  // Files the observer saw applied before it last saved its state need no
  // late reports (a restart would otherwise rebuild every rollup hour the
  // WAL since the last checkpoint touches, reading it all again).
  const uint64_t seen = observer ? observer->wal_seen() : 0;
  bool report = true;
  auto on_file = [&](uint64_t seq, bool checkpoint) {
    report = checkpoint ? seq > seen : seq >= seen;
  };
  std::vector<SeriesPoint> late;
  auto apply = [&](const SeriesPoint& p) {
    MemSeries* s = series_.Get(p.series);
    if (s == nullptr) {
      ++unknown;
      return;
    }
    if (!ApplyPoint(p.series, s, p.t, p.v)) ++unapplied;
    tombstones_.Unhide(p.series);  // written again after a delete emptied it
    if (report && p.t < late_mark) late.push_back(p);
  };
  Status wal_open;
  SUNDIAL_RETURN_IF_ERROR(wal_->Recover(
      [&](uint8_t type, std::string_view payload) {
        maint_run_mu_.AssertHeld();
        bool ok = true;
        late.clear();
        if (IsWalPointsRecord(type)) {
          ok = DecodeWalPoints(type, payload, apply);
        } else if (type == kWalPageRecord) {
          ok = DecodeCheckpointPage(payload, apply);
        } else if (type == kWalSeriesRecord) {
          ok = dict_->ReplayNewRecords(payload, &warnings);
        } else if (type == kWalDeleteRecord) {
          ReplayDelete(payload, &ok);
        } else if (type == kWalDeleteStateRecord) {
          ReplayDeleteState(payload, &ok);
        }
        if (!late.empty()) observer->OnLateAppend(late.data(), late.size());
        // Replay seals pages; write them as we go rather than hoard them.
        if (pages_pending_.load(std::memory_order_relaxed) >= 4096) (void)WritePending();
        if (!ok) ++corrupt;
      },
      &warnings, &corrupt, &wal_open, on_file));
  if (unapplied > 0) {
    // The WAL holds them: no checkpoint may drop it; a restart retries.
    SetBgError(Status::IOError("WAL replay: " + std::to_string(unapplied) +
                               " points could not be applied"));
  }
  if (!wal_open.ok()) EnterReadOnly(wal_open.WithContext("cannot open a WAL segment"));
  if (unknown > 0) {
    warnings.push_back("WAL: " + std::to_string(unknown) +
                       " points of unknown series skipped (dictionary damaged)");
  }
  for (auto& w : partitions_->TakeWarnings()) warnings.push_back(std::move(w));
  corruptions_.fetch_add(corrupt + (unknown > 0 ? 1 : 0), std::memory_order_relaxed);
  {
    MutexLock lock(&warn_mu_);  // after what SetBgError/EnterReadOnly added
    warnings_.insert(warnings_.begin(), std::make_move_iterator(warnings.begin()),
                     std::make_move_iterator(warnings.end()));
  }
  last_checkpoint_ms_ = last_sync_ms_ = last_slow_ms_ = env_->NowMs();
  return Status::OK();
}

StorageImpl::~StorageImpl() {
  {
    MutexLock lock(&maint_mu_);
    stop_ = true;
  }
  maint_cv_.SignalAll();
  if (maint_.joinable()) maint_.join();
  (void)Shutdown();  // on failure the WAL is kept and replayed next time
}

void StorageImpl::AddWarning(std::string w) {
  MutexLock lock(&warn_mu_);
  if (warnings_.size() < 1000) warnings_.push_back(std::move(w));
}

std::vector<std::string> StorageImpl::recovery_warnings() {
  for (auto& w : partitions_->TakeWarnings()) AddWarning(std::move(w));
  for (auto& w : damage_.Take()) AddWarning(std::move(w));
  MutexLock lock(&warn_mu_);
  return warnings_;
}

// ---- Write path ----

Status StorageImpl::ResolveSeries(std::string_view metric, const TagRef* tags, size_t num_tags,
                                  SeriesId* id) {
  bool created = false;
  return dict_->Resolve(metric, tags, num_tags, id, &created);
}

namespace {

// How many points ahead Append starts loading a series' state; far enough
// to cover a miss to memory, near enough that the lines are still cached
// when the point is applied.
constexpr size_t kPrefetchAhead = 8;

// The longest one Append waits for the page writer (back-pressure).
constexpr int64_t kMaxWriterWaitMs = 2000;

// Starts loading what appending to s's head will touch: the builder's
// state, the page header and the write position (from the hints).
inline void PrefetchAppendTarget(const MemSeries* s) {
  const auto* b = static_cast<const char*>(s->hint_builder.load(std::memory_order_relaxed));
  if (b == nullptr) return;
  __builtin_prefetch(b, 1);
  __builtin_prefetch(b + 64, 1);
  __builtin_prefetch(b + sizeof(compress::PageBuilder) - 1, 1);
  const char* page = s->hint_page.load(std::memory_order_relaxed);
  __builtin_prefetch(page, 1);
  __builtin_prefetch(page + s->hint_used.load(std::memory_order_relaxed), 1);
}

}  // namespace

Status StorageImpl::Append(const SeriesPoint* points, size_t n) {
  if (n == 0) return Status::OK();
  constexpr Timestamp kLimit = Timestamp{1} << 62;
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) series_.Prefetch(points[i + kPrefetchAhead].series);
    if (series_.Get(points[i].series) == nullptr) {
      return Status::InvalidArgument("unknown series id", std::to_string(points[i].series));
    }
    if (points[i].t >= kLimit || points[i].t <= -kLimit) {
      return Status::InvalidArgument("timestamp out of range", std::to_string(points[i].t));
    }
  }
  if (blocked_.load(std::memory_order_acquire)) SUNDIAL_RETURN_IF_ERROR(WriteBlocked());
  thread_local std::string record;
  EncodeWalBatch(points, n, &record);
  uint64_t lsn = 0;
  Timestamp newest = kMinTimestamp;
  {
    ReaderLock gate(&gate_);
    const Status ws = wal_->Append(record, &lsn);
    if (!ws.ok()) {
      EnterReadOnly(ws);
      return ws;
    }
    if (blocked_.load(std::memory_order_relaxed)) ClearReadOnly("a WAL write succeeded");
    Timestamp oldest = kMaxTimestamp;
    size_t unapplied = 0;
    for (size_t i = 0; i < n; ++i) {
      if (i + 2 * kPrefetchAhead < n) series_.Prefetch(points[i + 2 * kPrefetchAhead].series);
      if (i + kPrefetchAhead < n) {
        PrefetchAppendTarget(series_.Get(points[i + kPrefetchAhead].series));
      }
      const SeriesPoint& p = points[i];
      if (!ApplyPoint(p.series, series_.Get(p.series), p.t, p.v)) ++unapplied;
      newest = std::max(newest, p.t);
      oldest = std::min(oldest, p.t);
    }
    // Under the gate, so a checkpoint's SyncLate() covers this batch.
    LateAppendObserver* const observer = options_.late_observer;
    if (observer != nullptr && oldest < observer->late_watermark()) {
      observer->OnLateAppend(points, n);
    }
    if (tombstones_.any_hidden()) {
      for (size_t i = 0; i < n; ++i) tombstones_.Unhide(points[i].series);
    }
    if (unapplied > 0) {
      // In the WAL but not in memory: not acknowledged, and writes stop so
      // that no checkpoint drops the WAL that holds it.
      const Status s = Status::IOError("apply failed after the WAL write",
                                       std::to_string(unapplied) + " points");
      SetBgError(s);
      return WriteBlocked();
    }
  }
  if (record.capacity() > (1u << 20)) std::string().swap(record);  // do not hoard
  points_appended_.fetch_add(n, std::memory_order_relaxed);
  Timestamp seen = newest_t_.load(std::memory_order_relaxed);
  while (newest > seen && !newest_t_.compare_exchange_weak(seen, newest)) {
  }
  if (options_.wal_sync == WalSyncMode::kEveryBatch) {
    SUNDIAL_RETURN_IF_ERROR(wal_->SyncTo(lsn));  // and the new series before it
  }
  if (pages_pending_.load(std::memory_order_relaxed) >= 256 || wal_->WantsRotation()) {
    {
      MutexLock lock(&maint_mu_);
      work_ = true;
    }
    maint_cv_.Signal();
  }
  // Outside the gate, so that a checkpoint (which writes pending pages
  // first) is never held up by a waiting Append.
  if (options_.pending_budget_bytes > 0 &&
      pending_bytes_.load(std::memory_order_relaxed) > options_.pending_budget_bytes) {
    WaitForWriter();
  }
  return Status::OK();
}

void StorageImpl::PendingDone(const PendingPage* p) {
  pending_bytes_.fetch_sub(p->cost, std::memory_order_relaxed);
  pages_pending_.fetch_sub(1, std::memory_order_relaxed);
}

void StorageImpl::WaitForWriter() {
  if (!maint_.joinable()) return;
  append_waits_.fetch_add(1, std::memory_order_relaxed);
  {
    MutexLock lock(&maint_mu_);
    if (stop_) return;
    work_ = true;
  }
  maint_cv_.Signal();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kMaxWriterWaitMs);
  MutexLock lock(&pending_mu_);
  while (pending_bytes_.load(std::memory_order_relaxed) > options_.pending_budget_bytes) {
    if (!pending_cv_.WaitUntil(deadline)) break;
  }
}

Status StorageImpl::Sync() {
  return wal_->Sync();  // new series are in it (wal.h, type 8)
}

Status StorageImpl::SyncNewSeries() {
  return wal_->SyncTo(series_lsn_.load(std::memory_order_relaxed));
}

bool StorageImpl::ApplyPoint(SeriesId id, MemSeries* s, Timestamp t, Value v) {
  for (int round = 0; round < 4; ++round) {
    // A partition this series has no page open in is found (maybe opened)
    // without holding the series lock, as that may read its index. A late
    // point (older than the head's partition) needs only its partition's
    // range (round 1), so a backfill does not reopen closed partitions.
    PartitionRef part;
    Timestamp start = 0, end = 0;
    if (round == 1) partitions_->RangeOf(t, &start, &end);
    if (round > 1 && !partitions_->Locate(t, &part).ok()) break;
    SpinLockGuard lock(&s->lock);
    s->last_tick = tick_.load(std::memory_order_relaxed);
    if (round == 1) {
      if (s->head_end != kMinTimestamp && end <= s->head_start) {
        AppendOoo(id, s, start, end, t, v);
        return true;
      }
      continue;
    }
    if (TryApply(id, s, t, v, part.get())) return true;
  }
  apply_errors_.fetch_add(1, std::memory_order_relaxed);
  return false;
}

bool StorageImpl::TryApply(SeriesId id, MemSeries* s, Timestamp t, Value v, Partition* part) {
  const bool in_head = t >= s->head_start && t < s->head_end;
  const bool in_ooo = s->ooo && t >= s->ooo_start && t < s->ooo_end;
  if (part != nullptr && !in_head && !in_ooo) {
    if (s->head_end != kMinTimestamp && part->end() <= s->head_start) {
      AppendOoo(id, s, part->start(), part->end(), t, v);  // older than the head
      return true;
    }
    // Move the head to this (newer) partition. Its newest time covers the
    // partition's pages, pending pages and any open out-of-order page.
    FreezeHead(id, s);
    s->head_start = part->start();
    s->head_end = part->end();
    Timestamp m = std::max(part->MaxTimeOf(id), PendingMax(s, part->start()));
    if (s->ooo && s->ooo_start == part->start()) m = std::max(m, s->ooo->max_t());
    s->max_t = m;
  }
  if (t >= s->head_start && t < s->head_end) {
    if (t > s->max_t) {
      AppendHead(id, s, t, v);
    } else {
      AppendOoo(id, s, s->head_start, s->head_end, t, v);
    }
    return true;
  }
  if (s->ooo && t >= s->ooo_start && t < s->ooo_end) {
    AppendOoo(id, s, s->ooo_start, s->ooo_end, t, v);
    return true;
  }
  // A late point for a partition whose out-of-order page is parked goes
  // there without a partition lookup (which may reopen a closed one).
  if (s->head_end != kMinTimestamp && t < s->head_start) {
    for (const PendingPage* p = s->pending; p != nullptr; p = p->next) {
      if (p->open && t >= p->part_start && t < p->part_end) {
        const Timestamp start = p->part_start, end = p->part_end;
        AppendOoo(id, s, start, end, t, v);  // unparks p
        return true;
      }
    }
  }
  return false;
}

void StorageImpl::AppendHead(SeriesId id, MemSeries* s, Timestamp t, Value v) {
  if (!s->head) {
    s->head = NewPageBuilder();
    s->hint_builder.store(s->head.get(), std::memory_order_relaxed);
    s->hint_page.store(s->head->data().data(), std::memory_order_relaxed);
    head_bytes_.fetch_add(s->head->capacity(), std::memory_order_relaxed);
  }
  const uint32_t cap = s->head->capacity();
  if (!s->head->Append(t, v)) {
    FreezeHead(id, s);
    const bool ok = s->head->Append(t, v);  // the first point of a page always fits
    (void)ok;
  }
  if (s->head->capacity() > cap) {
    head_bytes_.fetch_add(s->head->capacity() - cap, std::memory_order_relaxed);
  }
  s->max_t = t;
  // The page buffer moves when it grows.
  s->hint_page.store(s->head->data().data(), std::memory_order_relaxed);
  s->hint_used.store(s->head->size(), std::memory_order_relaxed);
}

void StorageImpl::AddPending(SeriesId id, MemSeries* s, std::string_view page, uint8_t flags,
                             Timestamp part_start) {
  auto* p = new PendingPage;
  p->series = id;
  p->flags = flags;
  p->part_start = part_start;
  p->bytes.assign(page.data(), page.size());
  p->cost = static_cast<uint32_t>(sizeof(PendingPage) + page.size());
  const uint64_t bytes = pending_bytes_.fetch_add(p->cost, std::memory_order_relaxed) + p->cost;
  uint64_t peak = pending_bytes_peak_.load(std::memory_order_relaxed);
  while (bytes > peak && !pending_bytes_peak_.compare_exchange_weak(peak, bytes)) {
  }
  compress::PageHeader h;
  if (compress::DecodePageHeader(page, &h).ok()) {
    p->min_t = h.min_t;
    p->max_t = h.max_t;
  }
  p->next = s->pending;
  if (s->pending != nullptr) s->pending->newer = p;
  s->pending = p;
  pages_sealed_.fetch_add(1, std::memory_order_relaxed);
  pages_pending_.fetch_add(1, std::memory_order_relaxed);
  MutexLock lock(&pending_mu_);  // under the series lock: keeps series order
  pending_.push_back(p);
}

void StorageImpl::FreezeHead(SeriesId id, MemSeries* s) {
  if (!s->head || s->head->empty()) return;
  AddPending(id, s, s->head->data(), 0, s->head_start);
  const uint32_t cap = s->head->capacity();
  s->head->Reset();
  head_bytes_.fetch_sub(static_cast<int64_t>(cap) - s->head->capacity(),
                        std::memory_order_relaxed);
}

void StorageImpl::PendingOldestFirst(const MemSeries* s,
                                     std::vector<const PendingPage*>* out) {
  out->clear();
  for (const PendingPage* p = s->pending; p != nullptr; p = p->next) out->push_back(p);
  std::reverse(out->begin(), out->end());
}

Timestamp StorageImpl::PendingMax(const MemSeries* s, Timestamp part_start) const {
  Timestamp m = kMinTimestamp;
  for (const PendingPage* p = s->pending; p != nullptr; p = p->next) {
    if (p->part_start == part_start) m = std::max(m, p->max_t);
  }
  return m;
}

std::vector<std::pair<Timestamp, Timestamp>> StorageImpl::PartitionRanges() {
  return partitions_->Ranges();
}

// ---- Dictionary queries ----

std::vector<SeriesId> StorageImpl::SeriesOfMetric(std::string_view metric) {
  std::vector<SeriesId> ids = dict_->SeriesOfMetric(metric);
  tombstones_.FilterHidden(&ids);
  return ids;
}
std::vector<SeriesId> StorageImpl::SeriesWithTag(std::string_view key, std::string_view value) {
  std::vector<SeriesId> ids = dict_->SeriesWithTag(key, value);
  tombstones_.FilterHidden(&ids);
  return ids;
}
std::vector<SeriesId> StorageImpl::SeriesOfMetricWithTag(std::string_view metric,
                                                         std::string_view key,
                                                         const std::vector<std::string>& values) {
  std::vector<SeriesId> ids = dict_->SeriesOfMetricWithTag(metric, key, values);
  tombstones_.FilterHidden(&ids);
  return ids;
}
Status StorageImpl::GetSeriesKey(SeriesId id, SeriesKey* out) {
  return dict_->GetSeriesKey(id, out);
}
Status StorageImpl::GetSeriesKeyRef(SeriesId id, SeriesKeyRef* out) {
  return dict_->GetSeriesKeyRef(id, out);
}
Status StorageImpl::AssignName(NameKind kind, std::string_view name, uint32_t* uid,
                               bool* created) {
  if (const StorageHealth h = health(); h.read_only) {
    return Status::Unavailable("storage is read-only: " + h.reason);
  }
  return dict_->AssignName(kind, name, uid, created);
}

Status StorageImpl::RenameName(NameKind kind, std::string_view from, std::string_view to) {
  if (const StorageHealth h = health(); h.read_only) {
    return Status::Unavailable("storage is read-only: " + h.reason);
  }
  return dict_->RenameName(kind, from, to);
}

const std::atomic<uint64_t>* StorageImpl::name_epoch() { return dict_->name_epoch(); }

Status StorageImpl::NameOfUid(NameKind kind, uint32_t uid, std::string* name) {
  return dict_->NameOfUid(kind, uid, name);
}

Status StorageImpl::LookupUid(NameKind kind, std::string_view name, uint32_t* uid) {
  return dict_->LookupUid(kind, name, uid);
}
std::vector<std::string> StorageImpl::SuggestNames(NameKind kind, std::string_view prefix,
                                                   size_t max) {
  return dict_->SuggestNames(kind, prefix, max);
}

StorageStats StorageImpl::stats() {
  StorageStats st;
  st.points_appended = points_appended_.load(std::memory_order_relaxed);
  st.series_count = dict_->series_count();
  st.wal_bytes_written = wal_->bytes_written();
  st.wal_syncs = wal_->syncs();
  st.pages_sealed = pages_sealed_.load(std::memory_order_relaxed);
  st.corruptions_skipped = corruptions_.load(std::memory_order_relaxed) + damage_.count();
  st.pages_written = pages_written_.load(std::memory_order_relaxed);
  st.pages_pending = pages_pending_.load(std::memory_order_relaxed);
  st.pending_bytes = pending_bytes_.load(std::memory_order_relaxed);
  st.pending_bytes_peak = pending_bytes_peak_.load(std::memory_order_relaxed);
  st.append_waits = append_waits_.load(std::memory_order_relaxed);
  st.page_count = partitions_->PageCount();
  st.ooo_parked_bytes = parked_bytes_.load(std::memory_order_relaxed);
  st.out_of_order_points = ooo_points_.load(std::memory_order_relaxed);
  st.wal_write_errors = wal_->write_errors();
  st.page_write_errors = page_write_errors_.load(std::memory_order_relaxed);
  st.checkpoints = checkpoints_.load(std::memory_order_relaxed);
  size_t heads = 0;
  series_.ForEach([&](SeriesId, MemSeries* s) {
    SpinLockGuard lock(&s->lock);
    if (s->head) heads += s->head->MemoryUsage();
    if (s->ooo) heads += s->ooo->MemoryUsage();
  });
  st.memory_heads_bytes = heads;
  st.heads_sealed_early = heads_sealed_early_.load(std::memory_order_relaxed);
  st.memory_series_bytes = series_.MemoryUsage();
  st.memory_dict_bytes = dict_->MemoryUsage();
  // The page buffer pool's free chunks count in the total (not in heads).
  st.memory_bytes = st.memory_series_bytes + heads + st.memory_dict_bytes +
                    partitions_->MemoryUsage() + st.pending_bytes + st.ooo_parked_bytes +
                    page_buffers_.BytesFree();
  st.disk_bytes = partitions_->DiskBytes();
  st.partitions_compacted = compactions_.load(std::memory_order_relaxed);
  st.pages_read = pages_read_.load(std::memory_order_relaxed);
  st.partitions = partitions_->OpenCount();
  st.apply_errors = apply_errors_.load(std::memory_order_relaxed);
  st.partition_lru_closes = partitions_->lru_closes();
  st.open_files = file_cache_->open_count();
  st.file_closes = file_cache_->closes();
  st.read_only = blocked_.load(std::memory_order_relaxed) ? 1 : 0;
  return st;
}

}  // namespace sundial::storage
