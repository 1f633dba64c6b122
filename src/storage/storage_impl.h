// StorageImpl: the storage engine (see sundial/storage/storage.h for the
// contract and DESIGN.md §2-3 for the decisions).
//
// Write path: Append encodes the batch into one WAL record, writes it with
// one write() (Wal), then applies each point to its series under the
// series' own small lock: in-order points go to the series' head page (a
// compress::PageBuilder), late or repeated points to its out-of-order page.
// A full page is frozen into a PendingPage that the maintenance thread
// writes to the partition's page file, batched with the other pending ones
// (storage_maintenance.cc); Append never touches page files.
//
// Last write wins: a point goes to the head only if it is newer than
// everything the series holds in that partition, so an in-order point is
// always the first write of its timestamp. Out-of-order pages therefore
// override in-order ones, and among out-of-order pages the later written
// wins (page-file order, then pending order, then the open one).
//
// Maintenance thread: writes pending pages, fsyncs the WAL on the interval,
// seals heads whose partition has ended, checkpoints the WAL, closes idle
// partitions and applies retention.
//
// Checkpoint: under the exclusive append gate the WAL rotates to segment N,
// the end of every open page file is noted (marks) and every series'
// unsealed pages (pending pages, head, out-of-order page) are written to
// checkpoint N as compressed pages, after the marks. After the gate, page
// files are synced and checkpoint N is made durable; segments before N are
// removed. Recovery
// cuts page files back to the marks (pages written later hold points that
// the checkpoint or segments >= N hold too), then replays checkpoint N and
// segments >= N: every point lands in a page exactly once.
//
// Thread-safety: as the Storage interface.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "sundial/common/env.h"
#include "storage/file_cache_env.h"
#include "storage/partition_set.h"
#include "storage/series_dict.h"
#include "storage/series_iterator.h"
#include "storage/tombstones.h"
#include "storage/wal.h"
#include "sundial/common/mutex.h"
#include "sundial/compress/page_builder.h"
#include "sundial/storage/storage.h"

namespace sundial::storage {

class SnapshotPlanner;  // storage_snapshot.cc

// Snapshot names (storage_snapshot.cc): the UTC time as
// "YYYYMMDDTHHMMSS.mmmZ" (a "-<n>" suffix keeps names unique), and back to
// epoch ms (0 if name is not of that shape).
std::string SnapshotName(int64_t ms);
int64_t SnapshotNameTime(const std::string& name);
// Letters, digits, '-', '_', '.'; no "..", not "*.partial", at most 128.
bool ValidSnapshotName(const std::string& name);

// A tiny lock for one series: one byte, spins briefly then yields.
class CAPABILITY("mutex") SpinLock {
 public:
  void Lock() ACQUIRE() {
    for (int spins = 0; flag_.exchange(true, std::memory_order_acquire); ++spins) {
      if (spins > 64) std::this_thread::yield();
    }
  }
  void Unlock() RELEASE() { flag_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> flag_{false};
};

// Holds a SpinLock for its scope.
class SCOPED_CAPABILITY SpinLockGuard {
 public:
  explicit SpinLockGuard(SpinLock* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~SpinLockGuard() RELEASE() { mu_->Unlock(); }
  SpinLockGuard(const SpinLockGuard&) = delete;
  SpinLockGuard& operator=(const SpinLockGuard&) = delete;

 private:
  SpinLock* const mu_;
};

// A sealed page waiting to be written to its partition's page file, or a
// parked out-of-order page (open != null).
//
// Parked: when a late point goes to another partition than the series'
// open out-of-order page, that page is parked in the series' pending list
// rather than sealed, and taken back (UnparkOoo) when a late point for its
// partition comes again; so a backfill that jumps between partitions fills
// pages instead of sealing one tiny page per jump (each costing an index
// entry and a write). A parked page is the newest out-of-order data of its
// partition (at most one per series and partition), is not in the write
// queue, holds its points in arrival order like the open one, and is
// sealed when its series goes idle, at shutdown, before a delete, or when
// parked pages exceed options_.ooo_park_budget_bytes.
struct PendingPage {
  PendingPage* next = nullptr;   // the next older pending page of the series
  PendingPage* newer = nullptr;  // the next newer one
  SeriesId series = 0;
  uint8_t flags = 0;
  uint32_t cost = 0;  // what it adds to pending_bytes_ or parked_bytes_
  Timestamp part_start = 0;
  Timestamp part_end = 0;  // parked pages only
  Timestamp min_t = 0;
  Timestamp max_t = 0;
  std::string bytes;  // the compress page (sealed pages)
  std::unique_ptr<compress::PageBuilder> open;  // the parked page, arrival order
};

// In-memory state of one series. Fields are ordered for size (96 bytes on
// 64-bit, no padding holes): there is one per series.
struct MemSeries {
  SpinLock lock;
  std::atomic<bool> valid{false};
  uint32_t last_tick GUARDED_BY(lock) = 0;  // maintenance tick of the last append
  // head's partition range; empty range before the first point
  Timestamp head_start GUARDED_BY(lock) = kMaxTimestamp;
  Timestamp head_end GUARDED_BY(lock) = kMinTimestamp;
  Timestamp max_t GUARDED_BY(lock) = kMinTimestamp;  // newest time in the head's partition
  Timestamp ooo_start GUARDED_BY(lock) = 0;  // out-of-order page's partition
  Timestamp ooo_end GUARDED_BY(lock) = 0;
  std::unique_ptr<compress::PageBuilder> head GUARDED_BY(lock);
  std::unique_ptr<compress::PageBuilder> ooo GUARDED_BY(lock);
  PendingPage* pending GUARDED_BY(lock) = nullptr;  // newest first; owned
  // Where the next in-order append will write: the head's builder and its
  // page bytes up to the write position. Published (relaxed) after each
  // head append so that Append can prefetch a batch's pages without the
  // lock. Hints only: they may be stale or null, and are never dereferenced
  // (a prefetch of a stale address is harmless).
  std::atomic<const void*> hint_builder{nullptr};
  std::atomic<const char*> hint_page{nullptr};
  std::atomic<uint32_t> hint_used{0};
};

// Dense array of MemSeries by id, in blocks that never move, so that Append
// finds a series without a lock.
class SeriesTable {
 public:
  static constexpr uint32_t kBlockBits = 10;
  static constexpr uint32_t kBlockSize = 1u << kBlockBits;
  static constexpr uint32_t kMaxBlocks = 16384;  // 16 M series

  SeriesTable();
  ~SeriesTable();
  SeriesTable(const SeriesTable&) = delete;
  SeriesTable& operator=(const SeriesTable&) = delete;

  // The series, or null if id is not (yet) valid.
  MemSeries* Get(SeriesId id) const {
    if ((id >> kBlockBits) >= kMaxBlocks) return nullptr;
    MemSeries* block = blocks_[id >> kBlockBits].load(std::memory_order_acquire);
    if (block == nullptr) return nullptr;
    MemSeries* s = &block[id & (kBlockSize - 1)];
    return s->valid.load(std::memory_order_acquire) ? s : nullptr;
  }
  // Starts loading id's MemSeries into the cache (no effect if id is not
  // allocated). Touches only the block table.
  void Prefetch(SeriesId id) const {
    if ((id >> kBlockBits) >= kMaxBlocks) return;
    const MemSeries* block = blocks_[id >> kBlockBits].load(std::memory_order_relaxed);
    if (block == nullptr) return;
    const char* s = reinterpret_cast<const char*>(&block[id & (kBlockSize - 1)]);
    __builtin_prefetch(s, 1);
    __builtin_prefetch(s + sizeof(MemSeries) - 1, 1);
  }
  // Makes id valid, allocating its block if needed. False if id is too big.
  bool Create(SeriesId id);
  // Calls fn(id, series) for every valid series.
  template <typename F>
  void ForEach(F&& fn) const {
    for (uint32_t b = 0; b < kMaxBlocks; ++b) {
      MemSeries* block = blocks_[b].load(std::memory_order_acquire);
      if (block == nullptr) continue;
      for (uint32_t i = 0; i < kBlockSize; ++i) {
        if (block[i].valid.load(std::memory_order_acquire)) fn((b << kBlockBits) | i, &block[i]);
      }
    }
  }
  size_t MemoryUsage() const;

 private:
  std::unique_ptr<std::atomic<MemSeries*>[]> blocks_;
  Mutex mu_;  // serialises Create
  std::atomic<size_t> block_count_{0};
};

class StorageImpl final : public Storage {
 public:
  // Opens with the given Env (tests pass a fault-injecting one).
  // Without start_maintenance no maintenance thread runs and the caller
  // drives it with TEST_RunMaintenance() (benchmarks on a simulated clock).
  static Status Open(const StorageOptions& options, std::unique_ptr<Env> env,
                     std::unique_ptr<StorageImpl>* out, bool start_maintenance = true);

  ~StorageImpl() override;

  Status ResolveSeries(std::string_view metric, const TagRef* tags, size_t num_tags,
                       SeriesId* id) override;
  Status Append(const SeriesPoint* points, size_t n) override;
  Status Sync() override;
  Status SyncNewSeries() override;
  std::unique_ptr<SampleIterator> NewIterator(SeriesId id, Timestamp start,
                                              Timestamp end) override;
  std::unique_ptr<SampleIterator> NewHintedIterator(SeriesId id, Timestamp start,
                                                    Timestamp end,
                                                    const ReadAhead* kept) override;
  Status LastPoint(SeriesId id, Sample* out) override;
  // The ids' cold blocks and page-file pages, at most max_bytes in all.
  // With kept, the page-file pages are read into memory (ReadAhead); cold
  // blocks are only asked for (a cold read decodes a block once anyway).
  uint64_t WillRead(const std::vector<SeriesId>& ids, Timestamp start, Timestamp end,
                    uint64_t max_bytes, size_t* covered,
                    std::shared_ptr<const ReadAhead>* kept) override;
  std::vector<SeriesId> SeriesOfMetric(std::string_view metric) override;
  std::vector<SeriesId> SeriesWithTag(std::string_view key, std::string_view value) override;
  std::vector<SeriesId> SeriesOfMetricWithTag(std::string_view metric, std::string_view key,
                                              const std::vector<std::string>& values) override;
  Status GetSeriesKey(SeriesId id, SeriesKey* out) override;
  Status GetSeriesKeyRef(SeriesId id, SeriesKeyRef* out) override;
  Status LookupUid(NameKind kind, std::string_view name, uint32_t* uid) override;
  Status AssignName(NameKind kind, std::string_view name, uint32_t* uid, bool* created) override;
  Status NameOfUid(NameKind kind, uint32_t uid, std::string* name) override;
  Status RenameName(NameKind kind, std::string_view from, std::string_view to) override;
  const std::atomic<uint64_t>* name_epoch() override;
  std::vector<std::string> SuggestNames(NameKind kind, std::string_view prefix,
                                        size_t max) override;
  StorageStats stats() override;
  StorageHealth health() override;
  std::vector<std::string> recovery_warnings() override;
  std::vector<std::pair<Timestamp, Timestamp>> PartitionRanges() override;
  uint64_t removals() override {
    return partitions_->removals() + deletes_.load(std::memory_order_relaxed);
  }
  Status DeleteRange(const std::vector<SeriesId>& ids, Timestamp start, Timestamp end,
                     bool hide_empty, size_t* hidden) override;
  Status Snapshot(const std::string& name, const std::vector<SnapshotSource*>& sources,
                  SnapshotInfo* out) override;
  std::vector<SnapshotInfo> ListSnapshots() override;
  Status RemoveSnapshot(const std::string& name) override;
  Status NewWalReader(const WalPosition& from, std::unique_ptr<WalReader>* out) override;
  Status RotateWal(uint64_t* seq) override;

  // Seals every head and out-of-order page and writes all pending pages
  // (what a clean shutdown does first). For tests and benchmarks.
  Status TEST_FlushAll();
  // Runs one maintenance pass at the Env's current time, as the thread does
  // every 100 ms.
  void TEST_RunMaintenance();
  // Runs one checkpoint now.
  Status TEST_Checkpoint();
  // Seals the pages of idle series whose partition has ended, as the
  // maintenance thread does every few seconds, treating every series as idle.
  void TEST_SealIdle();
  // Drops partitions past retention now; returns how many.
  size_t TEST_ApplyRetention();
  // Makes the next page of partition `t` start at `offset` (sparse files).
  Status TEST_SetPageFileEnd(Timestamp t, uint64_t offset);
  // Compacts every partition that ends at or before cutoff and has a page
  // file, as maintenance does (one per minute) with now - compact_after.
  Status TEST_Compact(Timestamp cutoff);

 private:
  StorageImpl(const StorageOptions& options, std::unique_ptr<Env> env);
  Status Recover();
  // NewIterator and NewHintedIterator (read_ahead false; kept may be
  // null).
  std::unique_ptr<SampleIterator> OpenIterator(SeriesId id, Timestamp start, Timestamp end,
                                               bool read_ahead, const ReadAhead* kept);
  // False if the point could not be applied (its partition cannot be
  // opened); the caller then stops writes (SetBgError).
  bool ApplyPoint(SeriesId id, MemSeries* s, Timestamp t, Value v) EXCLUDES(s->lock);
  // Applies the point if t lies in the series' open pages' partitions, or
  // in part (then moving the head there if part is newer). False if not.
  bool TryApply(SeriesId id, MemSeries* s, Timestamp t, Value v, Partition* part)
      REQUIRES(s->lock);
  void AppendHead(SeriesId id, MemSeries* s, Timestamp t, Value v) REQUIRES(s->lock);
  void AppendOoo(SeriesId id, MemSeries* s, Timestamp start, Timestamp end, Timestamp t,
                 Value v) REQUIRES(s->lock);
  void FreezeHead(SeriesId id, MemSeries* s) REQUIRES(s->lock);
  void FreezeOoo(SeriesId id, MemSeries* s) REQUIRES(s->lock);
  // Sorts the out-of-order page b (arrival order) of partition part_start,
  // keeps the last write of each timestamp and adds it as pending pages.
  void SealOoo(SeriesId id, MemSeries* s, const compress::PageBuilder& b, Timestamp part_start)
      REQUIRES(s->lock);
  // Parks the series' open out-of-order page (see PendingPage), or seals it
  // if parked pages are over budget.
  void ParkOoo(SeriesId id, MemSeries* s) REQUIRES(s->lock);
  // Makes the series' parked page of partition `start`, if any, its open
  // out-of-order page again. REQUIRES: !s->ooo.
  void UnparkOoo(MemSeries* s, Timestamp start) REQUIRES(s->lock);
  // Seals the series' parked pages (those of partitions ending at or
  // before `cutoff`).
  void SealParked(SeriesId id, MemSeries* s, Timestamp cutoff = kMaxTimestamp)
      REQUIRES(s->lock);
  // Unlinks p from the series' pending list.
  static void Unlink(MemSeries* s, PendingPage* p) REQUIRES(s->lock);
  void AddPending(SeriesId id, MemSeries* s, std::string_view page, uint8_t flags,
                  Timestamp part_start) REQUIRES(s->lock);
  Timestamp PendingMax(const MemSeries* s, Timestamp part_start) const REQUIRES(s->lock);
  // Removes p's cost from the pending counters (it was written or dropped).
  void PendingDone(const PendingPage* p);
  // Back-pressure: while pending pages take more than
  // options_.pending_budget_bytes, waits for the maintenance thread to write
  // them (at most kMaxWriterWaitMs, so that a failing disk slows writes
  // rather than stops them; the WAL and read-only mode handle that).
  // No-op without a maintenance thread.
  void WaitForWriter() EXCLUDES(pending_mu_, maint_mu_);
  // The series' pending pages, oldest first.
  static void PendingOldestFirst(const MemSeries* s, std::vector<const PendingPage*>* out)
      REQUIRES(s->lock);

  // Maintenance (storage_maintenance.cc).
  void MaintenanceLoop();
  // One pass of the loop at Env time `now`. REQUIRES: maint_run_mu_ held.
  void MaintenancePass(int64_t now) REQUIRES(maint_run_mu_);
  Status WritePending() REQUIRES(maint_run_mu_);
  // Whether a sealed page of the partition starting at part_start waits to
  // be written.
  bool HasPendingIn(Timestamp part_start) EXCLUDES(pending_mu_);
  // When the open pages' buffers hold more than head_memory_bytes, seals
  // the largest (at least half a page) until they hold at most 3/4 of it,
  // or as close as that allows; the builder of a series idle since the
  // last slow tick is freed too (storage_head_budget.cc).
  void SealForBudget() REQUIRES(maint_run_mu_);
  Status Checkpoint() REQUIRES(maint_run_mu_);
  // Freezes heads and out-of-order pages: all of them, or those of series
  // idle for two slow ticks whose partition ended before the newest time
  // seen (wall clock or data) minus a grace period.
  void SealEnded(bool all, bool assume_idle = false) REQUIRES(maint_run_mu_);
  // Adds the series' unsealed pages to w as checkpoint page records (rec is
  // scratch space).
  Status SnapshotForCheckpoint(SeriesId id, MemSeries* s, Wal::CheckpointWriter* w,
                               std::string* rec) EXCLUDES(s->lock);
  Status Shutdown() EXCLUDES(maint_run_mu_);
  void AddWarning(std::string w);

  // Deletion (storage_delete.cc, tombstones.h).
  // Removes the points of [start, end] from the series' pages in memory.
  void RemoveFromMemory(SeriesId id, MemSeries* s, Timestamp start, Timestamp end)
      REQUIRES(s->lock);
  void FilterPending(MemSeries* s, PendingPage* p, Timestamp start, Timestamp end)
      REQUIRES(s->lock);
  static PartitionFiles FilesOf(Partition* part);
  // Tombstones for op in every partition holding one of its series, as
  // the partitions' files are now.
  Status AddTombstones(const DeleteOp& op) REQUIRES(maint_run_mu_);
  // Tells the late observer about every hour op may have changed.
  void ReportDeleted(const DeleteOp& op);
  bool HasNoPoints(SeriesId id);
  // What follows the memory part of a delete (live or replayed).
  Status ApplyDelete(const DeleteOp& op, size_t* hidden) REQUIRES(maint_run_mu_);
  void ReplayDelete(std::string_view payload, bool* ok) REQUIRES(maint_run_mu_);
  void ReplayDeleteState(std::string_view payload, bool* ok);
  // Appends the deletion state record to *rec if there is any state.
  void AppendDeleteState(std::string* rec);
  // Snapshots (storage_snapshot.cc).
  std::string SnapshotRoot() const { return options_.data_dir + "/snapshots"; }
  // Links and lists what the snapshot copies, under the maintenance mutex.
  Status PlanSnapshot(const std::vector<SnapshotSource*>& sources, SnapshotPlanner* plan,
                      SnapshotInfo* info) EXCLUDES(maint_run_mu_);
  // Removes snapshots left unfinished by a crash (Open).
  void RemovePartialSnapshots();

  // Health (storage_health.cc). Writes are refused while blocked_ is set.
  // Ok, or why writes are refused now.
  Status WriteBlocked() EXCLUDES(health_mu_);
  // Stops writes until restart; the first error is kept. Logged once as a
  // warning.
  void SetBgError(const Status& s) EXCLUDES(health_mu_);
  // Refuses writes until free space returns (if s says the disk is full) or
  // until the WAL can be written again.
  void EnterReadOnly(const Status& s) EXCLUDES(health_mu_);
  // From maintenance: leaves read-only mode if the disk has room again and
  // the WAL takes writes.
  void MaybeLeaveReadOnly(int64_t now) REQUIRES(maint_run_mu_) EXCLUDES(health_mu_);
  bool stopped() EXCLUDES(health_mu_);
  // Ends read-only mode (logged once with why).
  void ClearReadOnly(const char* why) EXCLUDES(health_mu_);

  // Compacts the oldest partition ending at or before cutoff that has a
  // page file and did not fail before.
  // Compacts the oldest candidate; true if it was in use or compacted (try
  // again soon: there may be more).
  bool CompactNext(Timestamp cutoff, int64_t now) REQUIRES(maint_run_mu_);
  // False while the partition starting at start, already compacted, has had
  // late pages for less than kRecompactDelayMs (storage_maintenance.cc).
  bool RecompactDue(Timestamp start, int64_t now) REQUIRES(maint_run_mu_);
  // Compaction (compaction.cc): rewrites the partition starting at start
  // into a cold file. Busy (retry later) while readers use it.
  Status CompactPartition(Timestamp start) REQUIRES(maint_run_mu_);
  // Rewrites the cold file of a partition without a page file that has
  // tombstones, dropping the deleted points (compaction.cc).
  Status RewriteCold(PartitionRef part) REQUIRES(maint_run_mu_);
  // Compaction's candidates: partitions ending at or before cutoff that
  // have a page file or tombstones, ascending.
  std::vector<Timestamp> CompactionCandidates(Timestamp cutoff) REQUIRES(maint_run_mu_);
  // Writes part's points, less its tombstones, to a temporary cold file,
  // then (with part unpinned) calls install(partition, tmp_path) under the
  // partition's exclusive lock to switch to it. On success drops the
  // partition's tombstones and counts a compaction; on failure removes the
  // temporary file. replaced_id: as for WriteColdFile (compaction.cc).
  Status SwapInColdFile(PartitionRef part, uint32_t replaced_id,
                        const std::function<Status(Partition*, const std::string&)>& install)
      REQUIRES(maint_run_mu_);
  // Writes the cold file of part to tmp_path.
  Status WriteColdFile(Partition* part, const std::string& tmp_path, uint32_t replaced_id)
      REQUIRES(maint_run_mu_);


  // An empty open page (head or out-of-order) whose buffer is from
  // page_buffers_.
  std::unique_ptr<compress::PageBuilder> NewPageBuilder() {
    return std::make_unique<compress::PageBuilder>(options_.page_size, true, &page_buffers_);
  }

  const StorageOptions options_;
  // The page buffers of every open page (heads and out-of-order pages).
  // Declared first so that it outlives every PageBuilder of the members below.
  compress::BufferPool page_buffers_;
  const std::unique_ptr<Env> env_;
  std::unique_ptr<FileCacheEnv> file_cache_;  // partition files; over env_
  SeriesTable series_;
  std::unique_ptr<SeriesDict> dict_;
  std::unique_ptr<Wal> wal_;
  std::unique_ptr<PartitionSet> partitions_;
  TombstoneSet tombstones_;
  std::atomic<uint64_t> deletes_{0};

  // Shared by Append (WAL write + apply), exclusive for a WAL rotation, so
  // that a checkpoint sees every point of the segments it replaces.
  SharedMutex gate_;

  Mutex pending_mu_;
  std::deque<PendingPage*> pending_ GUARDED_BY(pending_mu_);  // all series, seal order
  // Signalled when the writer has written pending pages (back-pressure).
  CondVar pending_cv_{&pending_mu_};
  // Bytes of pending pages (struct and page bytes), and the most so far.
  std::atomic<uint64_t> pending_bytes_{0};
  std::atomic<uint64_t> pending_bytes_peak_{0};
  std::atomic<uint64_t> append_waits_{0};
  std::atomic<uint64_t> parked_bytes_{0};  // parked out-of-order pages

  Mutex maint_mu_;
  CondVar maint_cv_{&maint_mu_};
  bool stop_ GUARDED_BY(maint_mu_) = false;
  bool work_ GUARDED_BY(maint_mu_) = false;  // something to do now
  std::thread maint_;
  Mutex maint_run_mu_;  // one maintenance pass at a time
  Mutex snapshot_mu_;   // one Snapshot() at a time, so that the count holds

  Mutex warn_mu_;
  std::vector<std::string> warnings_ GUARDED_BY(warn_mu_);

  std::atomic<Timestamp> newest_t_{kMinTimestamp};
  std::atomic<uint32_t> tick_{0};  // slow maintenance ticks so far
  // Maintenance bookkeeping.
  int64_t last_checkpoint_ms_ GUARDED_BY(maint_run_mu_) = 0;
  int64_t last_sync_ms_ GUARDED_BY(maint_run_mu_) = 0;
  int64_t last_slow_ms_ GUARDED_BY(maint_run_mu_) = 0;
  uint64_t wal_bytes_at_checkpoint_ GUARDED_BY(maint_run_mu_) = 0;
  uint64_t last_checkpoint_bytes_ GUARDED_BY(maint_run_mu_) = 0;
  int64_t last_compact_ms_ GUARDED_BY(maint_run_mu_) = 0;
  // When maintenance first saw pages pending since they were last written
  // (-1: none pending).
  int64_t pending_since_ms_ GUARDED_BY(maint_run_mu_) = -1;
  int64_t last_budget_ms_ GUARDED_BY(maint_run_mu_) = 0;
  std::set<Timestamp> compact_failed_ GUARDED_BY(maint_run_mu_);  // partition starts
  // Compacted partitions with late pages: when they were first seen so.
  std::map<Timestamp, int64_t> late_pages_since_ GUARDED_BY(maint_run_mu_);

  std::atomic<uint64_t> points_appended_{0};
  // The WAL position just past the newest new-series record (wal.h, type
  // 8): SyncNewSeries() fsyncs up to it, before any page is written.
  std::atomic<uint64_t> series_lsn_{0};
  std::atomic<uint64_t> ooo_points_{0};
  std::atomic<uint64_t> pages_sealed_{0};
  std::atomic<uint64_t> pages_written_{0};
  std::atomic<uint64_t> pages_pending_{0};
  std::atomic<uint64_t> page_write_errors_{0};
  std::atomic<uint64_t> corruptions_{0};  // found by Open
  DamageLog damage_;                      // found by readers
  std::atomic<uint64_t> pages_read_{0};   // sealed pages read by iterators
  std::atomic<uint64_t> checkpoints_{0};
  std::atomic<uint64_t> apply_errors_{0};
  std::atomic<uint64_t> compactions_{0};
  // Bytes of head page buffers: kept up to date by the append path where
  // a buffer grows or a head is sealed, and made exact by SealForBudget.
  std::atomic<int64_t> head_bytes_{0};
  std::atomic<uint64_t> heads_sealed_early_{0};

  // Health: blocked_ is the fast check on the append path.
  std::atomic<bool> blocked_{false};
  Mutex health_mu_;
  Status bg_error_ GUARDED_BY(health_mu_);        // sticky: writes stopped
  Status read_only_error_ GUARDED_BY(health_mu_);  // clears when space returns
  int64_t last_space_check_ms_ GUARDED_BY(maint_run_mu_) = 0;
};

}  // namespace sundial::storage
