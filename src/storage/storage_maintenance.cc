// StorageImpl's maintenance: writing pending pages, WAL syncs and
// checkpoints, sealing heads of ended partitions, closing idle partitions,
// retention, and the clean shutdown.
#include <algorithm>
#include <deque>
#include <tuple>
#include <vector>

#include "storage/record_log.h"
#include "storage/storage_impl.h"
#include "sundial/common/coding.h"
#include "sundial/common/memory.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::storage {
namespace {
constexpr int64_t kTickMs = 100;
constexpr int64_t kSlowTickMs = 10000;        // sealing, eviction, retention
constexpr Timestamp kSealGraceMs = 5 * 60000;  // late points still reach the head
constexpr int64_t kIdlePartitionMs = 5 * 60000;
constexpr int64_t kCompactCheckMs = 60000;
constexpr int64_t kBudgetCheckMs = 1000;  // head_memory walks at most this often
// A partition that was in use (a reader, such as the rollup builder after a
// start, holds it) is tried again this soon rather than a whole check later,
// and so is the next candidate after a compaction (a backlog after an import
// or an upgrade is worked off at one partition a second, not one a minute).
constexpr int64_t kCompactBusyRetryMs = 1000;
// Sealed pages wait in memory (readers see them, the WAL holds their points)
// until this many are pending or the oldest has waited kPendingMaxAgeMs, and
// are then written together: a trickle makes each 4 KiB block of the page
// file dirty about once instead of once per 512-byte page, and one write
// holds many pages of each metric side by side (WritePending), so that a
// query after a restart reads a day of one metric in as many runs of the
// page file as there were writes, each run one disk request (a request,
// not its bytes, is what a cold read mostly waits for). About 2.3 MB of
// 512-byte pages; storage.pending_budget bounds them as well. The age is
// long because each write ends inside a block that the next one dirties
// again: at 20 series (a burst of pages an hour) six hours cost the page
// file 1.49 B/pt in blocks for 1.38 in bytes, half an hour 1.92
// (bench/storage_append_bench sim). A checkpoint writes them sooner.
constexpr uint64_t kPendingWritePages = 4096;
constexpr int64_t kPendingMaxAgeMs = 6 * 3600 * 1000;
// Bounds on one write of pending pages (its buffer).
constexpr size_t kMaxGroupPages = 256;
constexpr uint64_t kMaxGroupBytes = 256 * 1024;
// Late points that reach a compacted partition go to a new page file, read
// through the merge; it is folded into the cold file once it has waited
// this long, so that a trickle of late points (a device whose clock lags)
// costs one rewrite of the cold file an hour, not one a page.
constexpr int64_t kRecompactDelayMs = 3600 * 1000;
}  // namespace

void StorageImpl::MaintenanceLoop() {
  for (;;) {
    {
      MutexLock lock(&maint_mu_);
      if (!stop_ && !work_) maint_cv_.WaitFor(std::chrono::milliseconds(kTickMs));
      if (stop_) return;
      work_ = false;
    }
    MutexLock run(&maint_run_mu_);
    MaintenancePass(env_->NowMs());
  }
}

void StorageImpl::MaintenancePass(int64_t now) {
  MaybeLeaveReadOnly(now);
  if (options_.head_memory_bytes > 0 && now - last_budget_ms_ >= kBudgetCheckMs &&
      head_bytes_.load(std::memory_order_relaxed) >
          static_cast<int64_t>(options_.head_memory_bytes)) {
    last_budget_ms_ = now;
    SealForBudget();  // the sealed pages join the pending ones below
  }
  Status s;
  const uint64_t pending = pages_pending_.load(std::memory_order_relaxed);
  if (pending == 0) {
    pending_since_ms_ = -1;
  } else if (pending_since_ms_ < 0) {
    pending_since_ms_ = now;
  }
  // A budget smaller than kPendingWritePages pages must not leave Appends
  // waiting for a write that the page count alone would not start.
  const bool over_budget =
      options_.pending_budget_bytes > 0 &&
      pending_bytes_.load(std::memory_order_relaxed) > options_.pending_budget_bytes / 2;
  if (pending >= kPendingWritePages || over_budget ||
      (pending > 0 && now - pending_since_ms_ >= kPendingMaxAgeMs)) {
    s = WritePending();
  }
  if (options_.wal_sync == WalSyncMode::kInterval &&
      now - last_sync_ms_ >= static_cast<int64_t>(options_.wal_sync_interval_ms)) {
    last_sync_ms_ = now;
    (void)Sync();  // an fsync error shows again on the next Sync()/Append
  }
  // On the interval, once the WAL written since the last checkpoint is at
  // least twice that checkpoint's size: checkpoints then cost at most half
  // the WAL's writes, and recovery reads at most three checkpoints' worth.
  // A trickle waits for checkpoint_min_wal_bytes too: each checkpoint
  // writes every open page and fsyncs the page files, which a few points a
  // second would otherwise pay for every interval.
  const uint64_t wal_since = wal_->bytes_written() - wal_bytes_at_checkpoint_;
  const bool ckpt_due =
      options_.checkpoint_interval_ms > 0 &&
      now - last_checkpoint_ms_ >= static_cast<int64_t>(options_.checkpoint_interval_ms) &&
      wal_since > 0 && wal_since >= 2 * last_checkpoint_bytes_ &&
      wal_since >= options_.checkpoint_min_wal_bytes;
  if (s.ok() && (wal_->WantsRotation() || ckpt_due)) {
    last_checkpoint_ms_ = now;
    (void)Checkpoint();  // retried on the next trigger; the WAL keeps the data
  }
  if (now - last_slow_ms_ >= kSlowTickMs) {
    last_slow_ms_ = now;
    tick_.fetch_add(1, std::memory_order_relaxed);
    SealEnded(false);
    const Timestamp newest = std::max<Timestamp>(now, newest_t_.load());
    // Ended partitions close once idle; a late write or a read reopens one.
    partitions_->EvictIdle(now - kIdlePartitionMs, newest - kSealGraceMs);
    // Partitions closed unsynced (a backfill's) become durable in the
    // background, so that a stop has few left to sync.
    (void)partitions_->SyncClosed();  // what fails is tried again by SyncAll
    if (options_.retention_ms > 0) partitions_->DropBefore(now - options_.retention_ms);
    for (auto& w : partitions_->TakeWarnings()) AddWarning(std::move(w));
    // What ingest bursts and readers freed goes back to the OS.
    ReleaseFreeMemory();
  }
  if (options_.compact_after_ms > 0 && now - last_compact_ms_ >= kCompactCheckMs) {
    const bool busy = CompactNext(now - options_.compact_after_ms, now);
    last_compact_ms_ = busy ? now - kCompactCheckMs + kCompactBusyRetryMs : now;
  }
}

bool StorageImpl::RecompactDue(Timestamp start, int64_t now) {
  PartitionRef part;
  for (auto& p : partitions_->Overlapping(start, start)) {
    if (p->start() == start) part = std::move(p);
  }
  uint32_t cold_id = 0;
  if (!part || !part->HasPageFile() || !part->ColdId(&cold_id)) {
    late_pages_since_.erase(start);
    return true;  // a first compaction, or a rewrite for deletes
  }
  const auto it = late_pages_since_.emplace(start, now).first;
  if (now - it->second < kRecompactDelayMs) return false;
  late_pages_since_.erase(it);
  return true;
}

bool StorageImpl::CompactNext(Timestamp cutoff, int64_t now) {
  // One partition per check bounds the work of a pass. A partition in use
  // is tried again soon (the caller's retry); one that fails is left alone
  // until the next start, with a warning.
  for (Timestamp start : CompactionCandidates(cutoff)) {
    if (compact_failed_.count(start) != 0 || !RecompactDue(start, now)) continue;
    // Pages of the partition still waiting go in with the rest, rather
    // than into a page file beside the cold one (a second rewrite an hour
    // later). What fails to be written stays pending, as in any pass.
    if (HasPendingIn(start)) (void)WritePending();
    Status s = CompactPartition(start);
    if (s.ok() || s.code() == Status::Code::kBusy) return true;
    compact_failed_.insert(start);
    AddWarning("compaction: " + s.ToString());
    return false;
  }
  return false;
}

std::vector<Timestamp> StorageImpl::CompactionCandidates(Timestamp cutoff) {
  std::vector<Timestamp> out = partitions_->WithPageFiles(cutoff);
  if (tombstones_.empty()) return out;
  for (const auto& r : partitions_->Ranges()) {
    if (r.second <= cutoff && tombstones_.HasPartition(r.first)) out.push_back(r.first);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool StorageImpl::HasPendingIn(Timestamp part_start) {
  MutexLock lock(&pending_mu_);
  for (const PendingPage* p : pending_) {
    if (p->part_start == part_start) return true;
  }
  return false;
}

Status StorageImpl::WritePending() {
  SUNDIAL_RETURN_IF_ERROR(SyncNewSeries());  // no page of a series a power cut could lose
  std::deque<PendingPage*> batch;
  {
    MutexLock lock(&pending_mu_);
    batch.swap(pending_);
  }
  // One partition after another: a backfill's pages spread over more
  // partitions than stay open would otherwise reopen one per page. Within a
  // partition by metric, then series: the pages a query reads together (one
  // metric's series) then lie side by side in the page file, read after a
  // restart as runs of adjacent blocks rather than one scattered block per
  // page. Stable, so the pages of each series keep their order (the later
  // written wins), which is all the order that matters. Consecutive pages
  // of one partition then go to its page file with one write.
  std::vector<SeriesId> ids;
  ids.reserve(batch.size());
  for (const PendingPage* p : batch) ids.push_back(p->series);
  std::vector<uint32_t> metrics;
  dict_->MetricsOf(ids, &metrics);
  std::vector<uint32_t> order(batch.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const PendingPage* x = batch[a];
    const PendingPage* y = batch[b];
    return std::tie(x->part_start, metrics[a], x->series) <
           std::tie(y->part_start, metrics[b], y->series);
  });
  {
    std::deque<PendingPage*> sorted;
    for (uint32_t i : order) sorted.push_back(batch[i]);
    batch.swap(sorted);
  }
  std::vector<Partition::NewPage> group;
  while (!batch.empty()) {
    const Timestamp part_start = batch.front()->part_start;
    group.clear();
    uint64_t bytes = 0;
    for (size_t i = 0; i < batch.size() && group.size() < kMaxGroupPages &&
                       bytes < kMaxGroupBytes && batch[i]->part_start == part_start;
         ++i) {
      const PendingPage* p = batch[i];
      group.push_back(Partition::NewPage{p->series, p->flags, p->bytes, p->min_t, p->max_t});
      bytes += p->bytes.size();
    }
    PartitionRef part;
    Status s = partitions_->Locate(part_start, &part);
    if (s.ok()) s = part->AddPages(group.data(), group.size());
    if (!s.ok()) {
      // Keep the rest, in order, ahead of pages sealed meanwhile.
      page_write_errors_.fetch_add(1, std::memory_order_relaxed);
      MutexLock lock(&pending_mu_);
      pending_.insert(pending_.begin(), batch.begin(), batch.end());
      return s;
    }
    for (size_t i = 0; i < group.size(); ++i) {
      PendingPage* p = batch.front();
      batch.pop_front();
      MemSeries* series = series_.Get(p->series);
      {
        SpinLockGuard lock(&series->lock);
        Unlink(series, p);
      }
      PendingDone(p);
      delete p;
    }
    pages_written_.fetch_add(group.size(), std::memory_order_relaxed);
    // Wake Appends waiting for the budget (WaitForWriter) as it frees up.
    pending_cv_.SignalAll();
  }
  // Whoever wrote them (a pass, a checkpoint, a compaction, a delete), the
  // pages sealed from now on wait their own kPendingMaxAgeMs.
  pending_since_ms_ = -1;
  return Status::OK();
}

void StorageImpl::SealEnded(bool all, bool assume_idle) {
  const Timestamp now = std::max<Timestamp>(env_->NowMs(), newest_t_.load());
  const Timestamp cutoff = all ? kMaxTimestamp : now - kSealGraceMs;
  const uint32_t tick = tick_.load(std::memory_order_relaxed);
  series_.ForEach([&](SeriesId id, MemSeries* s) {
    SpinLockGuard lock(&s->lock);
    // A series still writing keeps its pages open (a backfill, or a clock
    // far ahead); they are sealed when full or when it moves on.
    if (!all && !assume_idle && tick - s->last_tick < 2) return;
    if (s->head && (all || s->head_end <= cutoff)) {
      FreezeHead(id, s);
      head_bytes_.fetch_sub(s->head->capacity(), std::memory_order_relaxed);
      s->head.reset();  // an idle series keeps no page buffer
      s->hint_builder.store(nullptr, std::memory_order_relaxed);
    }
    if (s->ooo && (all || s->ooo_end <= cutoff)) FreezeOoo(id, s);
    SealParked(id, s, cutoff);
  });
}

Status StorageImpl::SnapshotForCheckpoint(SeriesId id, MemSeries* s, Wal::CheckpointWriter* w,
                                          std::string* rec) {
  auto emit = [&](std::string_view page, uint8_t kind) {
    std::string payload;
    rec->clear();
    PutVarint32(rec, id);
    rec->push_back(static_cast<char>(kind));
    rec->append(page.data(), page.size());
    payload.swap(*rec);
    AppendLogRecord(rec, kWalPageRecord, payload);
    return w->Add(*rec);
  };
  SpinLockGuard lock(&s->lock);
  // Write order matters (last write wins): in-order data first, then the
  // out-of-order pages oldest first, then the open out-of-order page.
  std::vector<const PendingPage*> pending;
  PendingOldestFirst(s, &pending);
  for (const PendingPage* p : pending) {
    if ((p->flags & kPageFlagOutOfOrder) == 0) SUNDIAL_RETURN_IF_ERROR(emit(p->bytes, 0));
  }
  if (s->head && !s->head->empty()) SUNDIAL_RETURN_IF_ERROR(emit(s->head->data(), 0));
  for (const PendingPage* p : pending) {
    if (p->open) {
      SUNDIAL_RETURN_IF_ERROR(emit(p->open->data(), 2));  // parked: open, arrival order
    } else if ((p->flags & kPageFlagOutOfOrder) != 0) {
      SUNDIAL_RETURN_IF_ERROR(emit(p->bytes, 1));
    }
  }
  if (s->ooo && !s->ooo->empty()) SUNDIAL_RETURN_IF_ERROR(emit(s->ooo->data(), 2));
  return Status::OK();
}

Status StorageImpl::Checkpoint() {
  // Under the exclusive gate nothing is appended: the segment switch, the
  // page files' marks and the copy of memory all describe one moment, so
  // recovery replays every point exactly once (pages up to the marks, then
  // the checkpoint's pages, then the segments from the new one on). The
  // copy goes straight to the checkpoint file (page cache), not to a
  // buffer, so a checkpoint costs no memory.
  // A stopped engine holds WAL records that memory lacks: keep the WAL.
  // A read-only one could not write the checkpoint anyway.
  SUNDIAL_RETURN_IF_ERROR(WriteBlocked());
  (void)WritePending();  // a smaller checkpoint; what fails stays pending
  uint64_t seq = 0;
  std::unique_ptr<Wal::CheckpointWriter> w;
  {
    WriterLock gate(&gate_);
    SUNDIAL_RETURN_IF_ERROR(wal_->Rotate(&seq));
    SUNDIAL_RETURN_IF_ERROR(wal_->NewCheckpoint(seq, &w));
    std::string payload, rec;
    partitions_->Marks(&payload);
    AppendLogRecord(&rec, kWalMarksRecord, payload);
    AppendDeleteState(&rec);  // after the marks, which must come first
    SUNDIAL_RETURN_IF_ERROR(w->Add(rec));
    Status s;
    series_.ForEach([&](SeriesId id, MemSeries* series) {
      if (s.ok()) s = SnapshotForCheckpoint(id, series, w.get(), &rec);
    });
    SUNDIAL_RETURN_IF_ERROR(s);
  }
  const uint64_t wal_bytes = wal_->bytes_written();
  SUNDIAL_RETURN_IF_ERROR(partitions_->SyncAll());
  SUNDIAL_RETURN_IF_ERROR(dict_->Sync());
  // Segments before seq go away with Finish(): late-point notices from
  // them must be durable first.
  if (options_.late_observer != nullptr) SUNDIAL_RETURN_IF_ERROR(options_.late_observer->SyncLate());
  last_checkpoint_bytes_ = w->size();
  SUNDIAL_RETURN_IF_ERROR(w->Finish());
  wal_bytes_at_checkpoint_ = wal_bytes;
  checkpoints_.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

Status StorageImpl::RotateWal(uint64_t* seq) {
  // Under the exclusive gate no append is between its WAL record and
  // memory: everything in older segments is applied.
  WriterLock gate(&gate_);
  return wal_->Rotate(seq);
}

void StorageImpl::TEST_RunMaintenance() {
  MutexLock run(&maint_run_mu_);
  MaintenancePass(env_->NowMs());
}

Status StorageImpl::TEST_Checkpoint() {
  MutexLock run(&maint_run_mu_);
  return Checkpoint();
}

Status StorageImpl::TEST_FlushAll() {
  MutexLock run(&maint_run_mu_);
  SealEnded(true);
  SUNDIAL_RETURN_IF_ERROR(WritePending());
  return partitions_->SyncAll();
}

Status StorageImpl::Shutdown() {
  MutexLock run(&maint_run_mu_);
  SealEnded(true);
  Status s = WritePending();
  if (s.ok() && stopped()) s = Status::Unavailable("writes stopped: the WAL is kept");
  if (s.ok()) s = partitions_->SyncAll();
  if (s.ok()) s = dict_->Sync();
  if (s.ok() && options_.late_observer != nullptr) s = options_.late_observer->SyncLate();
  if (!s.ok()) {
    (void)wal_->Sync();  // keep the WAL: recovery replays it
    return s;
  }
  // Everything is in synced pages: the WAL restarts empty, with marks so
  // that a crash later cuts what is written after this point.
  std::string payload, marks;
  partitions_->Marks(&payload);
  AppendLogRecord(&marks, kWalMarksRecord, payload);
  AppendDeleteState(&marks);
  return wal_->Reset(marks);
}

size_t StorageImpl::TEST_ApplyRetention() {
  MutexLock run(&maint_run_mu_);
  return partitions_->DropBefore(env_->NowMs() - options_.retention_ms);
}

void StorageImpl::TEST_SealIdle() {
  MutexLock run(&maint_run_mu_);
  SealEnded(false, true);
}

Status StorageImpl::TEST_Compact(Timestamp cutoff) {
  MutexLock run(&maint_run_mu_);
  for (Timestamp start : CompactionCandidates(cutoff)) {
    SUNDIAL_RETURN_IF_ERROR(CompactPartition(start));
  }
  return Status::OK();
}

Status StorageImpl::TEST_SetPageFileEnd(Timestamp t, uint64_t offset) {
  PartitionRef part;
  SUNDIAL_RETURN_IF_ERROR(partitions_->Locate(t, &part));
  return part->TEST_SetPageFileEnd(offset);
}

}  // namespace sundial::storage
