// RollupStore: hourly rollups (count, sum, min, max, first, last; see
// hour_stats.h) of every series, built in the background from the raw
// points and read by the query planner instead of the raw points.
//
// Why: a query such as "avg of a metric per host over a day in 1 h buckets"
// would otherwise decode every raw point of the day; with rollups it reads
// one small record per series and hour. Days are derived from the hours at
// read time (24 records), so there is one kind of record to keep right.
//
// Layout (owned by this module): data_dir/rollup/
//   <day start>.rlp   one file per UTC day (format: rollup_file.h)
//   STATE             "built up to" watermark: fixed32 version (2),
//                     fixed64 watermark, fixed64 WAL segment seen (see
//                     below), fixed32 masked crc32c of what precedes.
//                     Version 1 (no WAL segment, read as 0) is 16 bytes.
//   dirty.log         hours to recompute: records of fixed32 payload
//                     length, fixed32 masked crc32c(payload), payload; a
//                     payload is entries of varint32 kind (1 = one series'
//                     hour, 2 = a whole day), varint32 series (kind 1
//                     only), varint64 zigzag(hour or day start, ms).
//                     A torn tail is ignored.
//
// Build (own thread, `build_interval_ms`): an hour is built once the batch
// it belongs to (`batch_ms`) ended `grace_ms` ago; files are written whole
// and renamed. Late points: the
// store is the storage's LateAppendObserver; a point older than the
// watermark marks its (series, hour) dirty (dirty.log, fsync'ed before the
// storage drops WAL data); the next pass recomputes those hours. Marks
// beyond max_dirty_pairs collapse into whole days. On start, points
// replayed from the WAL are reported again, except those of WAL files
// older than the segment STATE names (wal_seen): before reading a day the
// builder starts a new WAL segment (Storage::RotateWal), so every point in
// older files was either read by that build or reported late before it
// (dirty.log, fsync'ed before STATE is written); a restart, even after a
// kill -9, thus reads again only what came after. Built days whose file is
// missing or damaged are rebuilt.
//
// Reads: an hour is answered from a rollup only if it is below the
// watermark, not dirty and its day file is sound; otherwise the caller
// reads it raw. A cursor takes its snapshot of the dirty marks before it
// opens any file, and a pass swaps the file in before it clears marks, so
// a query never reads a stale record.
//
// Thread-safety: every method is thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/mutex.h"
#include "sundial/common/status.h"
#include "sundial/common/thread_annotations.h"
#include "sundial/rollup/hour_stats.h"
#include "sundial/rollup/rollup_file.h"
#include "sundial/storage/storage.h"

namespace sundial::rollup {

struct RollupOptions {
  std::string dir;                    // e.g. data_dir + "/rollup"; created if missing
  uint32_t build_interval_ms = 60000; // how often the builder looks for work
  Timestamp grace_ms = 10 * 60000;    // an hour is built this long after it ended
  // New hours are built in batches of this many ms (whole hours, 1 h..24 h,
  // aligned to the UTC day; a day's last batch may be shorter). A batch is
  // built once its last hour ended grace_ms ago. Each build rewrites the
  // day file and STATE, so a longer batch costs the disk fewer writes; the
  // hours of the batch being filled are answered from raw points meanwhile.
  Timestamp batch_ms = kHourMs;
  Timestamp retention_ms = 0;         // day files older than this are removed; 0 = never
  size_t max_dirty_pairs = 65536;     // (series, hour) marks before collapsing to days
  size_t max_open_days = 16;          // day files kept open for reading
  std::function<int64_t()> clock;     // epoch ms; empty = the system clock
  Env* env = nullptr;                 // all file I/O; borrowed; null = POSIX
};

struct RollupStats {
  uint64_t passes = 0;
  uint64_t hours_built = 0;      // series-hours computed from raw points
  uint64_t files_written = 0;
  uint64_t bytes_written = 0;
  uint64_t late_marks = 0;       // (series, hour) marks from late points
  uint64_t dirty_pending = 0;    // gauge: marks (pairs + days) waiting
  uint64_t disk_bytes = 0;       // gauge: bytes of the day files
  uint64_t errors = 0;           // failed passes
  uint64_t hours_read = 0;       // hours answered from rollups by cursors
  Timestamp watermark = 0;       // hours before it are built
};

enum class HourState : uint8_t {
  kEmpty,   // rolled up: the series has no point in this hour
  kRolled,  // rolled up: stats given
  kRaw,     // not rolled up (recent, dirty or damaged): read the raw points
};

class RollupStore;

// The rollup view of one series for one query. Not thread-safe; cheap.
class HourCursor {
 public:
  ~HourCursor();
  HourCursor(const HourCursor&) = delete;
  HourCursor& operator=(const HourCursor&) = delete;

  // REQUIRES: hour is UTC-hour aligned, in [start, end) of the cursor, and
  // not below the previous call's.
  HourState Get(Timestamp hour, HourStats* out);

 private:
  friend class RollupStore;
  HourCursor() = default;

  const RollupStore* store_ = nullptr;
  SeriesId id_ = 0;
  Timestamp watermark_ = 0;
  std::vector<Timestamp> dirty_hours_;  // ascending
  std::vector<Timestamp> dirty_days_;   // ascending
  size_t dirty_pos_ = 0;
  Timestamp day_ = kMinTimestamp;       // day loaded into hours_
  bool day_ok_ = false;
  std::vector<HourStats> hours_;
  size_t pos_ = 0;
  uint64_t rolled_ = 0;  // hours answered, added to the store's count at the end
};

class RollupStore final : public storage::LateAppendObserver {
 public:
  // Opens the directory and loads STATE and dirty.log. Open before the
  // storage, so that it can be given as StorageOptions::late_observer.
  static Status Open(const RollupOptions& options, std::unique_ptr<RollupStore>* out);
  // Forgets what was built in dir (removes STATE), so that the next Open
  // rebuilds every day from the raw points. For when rollups were off and
  // late points went untracked. Ok if dir does not exist.
  static Status Invalidate(const std::string& dir, Env* env = nullptr);
  ~RollupStore() override;
  RollupStore(const RollupStore&) = delete;
  RollupStore& operator=(const RollupStore&) = delete;

  // Starts the builder thread. storage is borrowed and must stay open
  // until Stop() (or the destructor) returns.
  void Start(storage::Storage* storage);
  // Stops the builder thread (waits for a running pass). Idempotent.
  void Stop();
  // Runs one build pass now on the calling thread (tests, benchmarks).
  // REQUIRES: Start() not called, or Stop() called.
  Status BuildNow(storage::Storage* storage);

  // A cursor over series id for hours in [start, end) (hour aligned).
  std::unique_ptr<HourCursor> NewCursor(SeriesId id, Timestamp start, Timestamp end) const;

  RollupStats stats() const;

  // storage::LateAppendObserver
  Timestamp late_watermark() const override { return late_mark_.load(); }
  uint64_t wal_seen() const override { return wal_seen_.load(); }
  void OnLateAppend(const storage::SeriesPoint* points, size_t n) override;
  Status SyncLate() override;

 private:
  friend class HourCursor;
  struct DayWork;
  explicit RollupStore(const RollupOptions& options);

  int64_t NowMs() const;
  Status Load();
  void BuilderLoop();
  Status Pass(storage::Storage* storage);
  // The end of the last whole batch before closed_end (hour aligned).
  Timestamp BatchEnd(Timestamp closed_end) const;
  Status BuildNewHours(storage::Storage* storage, Timestamp closed_end);
  Status BuildDirty(storage::Storage* storage);
  // *wrote (if given): whether the day has a file now.
  Status RebuildDay(storage::Storage* storage, const DayWork& work, bool* wrote = nullptr);
  Status WriteState(Timestamp watermark);
  // Whether a STATE file exists. Until one does, a pass that rolled nothing
  // up writes none.
  bool HasState() const;
  // Marks built days whose file is missing or damaged (first pass only).
  void CheckFiles(storage::Storage* storage);
  void ApplyRetention();
  // Reader of a day (cached), or null if the file is missing or damaged.
  std::shared_ptr<const DayFileReader> Reader(Timestamp day) const;
  void MarkDayLocked(Timestamp day) const REQUIRES(mu_);
  // The last-marked-hour slot of a series, or null (not allocated yet).
  std::atomic<int32_t>* MarkSlot(SeriesId id, bool create) const;
  // Forgets the cached marks of id (all series if id is kInvalidSeriesId),
  // so that its next late point takes the lock.
  void ForgetMarksLocked(SeriesId id) const REQUIRES(mu_);
  void AppendDirtyLocked(const std::string& entries) const REQUIRES(mu_);
  Status RewriteDirtyLogLocked() const REQUIRES(mu_);

  const RollupOptions options_;
  const std::unique_ptr<Env> owned_env_;  // when options_.env is null
  Env* const env_;

  std::atomic<Timestamp> late_mark_{kMinTimestamp};  // points below it are late
  // WAL segment started just before the newest built day was read (STATE).
  std::atomic<uint64_t> wal_seen_{0};

  mutable Mutex mu_;
  Timestamp built_mark_ GUARDED_BY(mu_) = kMinTimestamp;  // hours below it are built
  // Dirty marks with the sequence number of their latest mark: a pass
  // clears a mark only if it was not marked again while the pass ran.
  mutable std::map<std::pair<SeriesId, Timestamp>, uint64_t> dirty_pairs_ GUARDED_BY(mu_);
  mutable std::map<Timestamp, uint64_t> dirty_days_ GUARDED_BY(mu_);
  mutable uint64_t mark_seq_ GUARDED_BY(mu_) = 0;
  mutable std::unique_ptr<File> dirty_file_ GUARDED_BY(mu_);  // null: rewrite first
  mutable uint64_t dirty_size_ GUARDED_BY(mu_) = 0;          // append offset
  mutable bool dirty_unsynced_ GUARDED_BY(mu_) = false;
  // day -> (reader, last use)
  mutable std::map<Timestamp, std::pair<std::shared_ptr<const DayFileReader>, uint64_t>>
      readers_ GUARDED_BY(mu_);
  mutable uint64_t use_clock_ GUARDED_BY(mu_) = 0;
  mutable RollupStats stats_ GUARDED_BY(mu_);
  mutable std::atomic<uint64_t> hours_read_{0};
  // Per series, the hour (since the epoch) of its last late-point mark, so
  // that further late points of that hour cost no lock: blocks of
  // kMarkBlock slots, allocated under mu_, never freed before the store.
  static constexpr uint32_t kMarkBlockBits = 12;
  static constexpr uint32_t kMarkBlocks = 4096;  // 16 M series
  std::unique_ptr<std::atomic<std::atomic<int32_t>*>[]> mark_blocks_;

  Mutex run_mu_;  // one pass at a time
  bool checked_files_ GUARDED_BY(run_mu_) = false;  // startup check done
  Mutex stop_mu_;
  CondVar stop_cv_{&stop_mu_};
  bool stop_ GUARDED_BY(stop_mu_) = false;
  std::atomic<bool> stopping_{false};  // read by long passes
  std::thread builder_;
  storage::Storage* storage_ = nullptr;  // set by Start()
};

}  // namespace sundial::rollup
