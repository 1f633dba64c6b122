// Storage: Sundial's time-series engine (series dictionary, inverted index,
// head pages, WAL, memory-mapped partition files).
//
// Why an interface: ingest/ and query/ depend only on this header. The one
// implementation is StorageImpl (src/storage/); tests of other modules may
// use their own small implementations, end-to-end tests use the real one.
//
// Data model: a series is a metric plus a set of tags (key=value), order of
// tags irrelevant. Metric names, tag keys and tag values are interned to
// dense ids per kind (OpenTSDB-style UIDs, assigned in creation order from 1).
// Each point is (Timestamp ms, Value). Out-of-order and duplicate points are
// accepted; for equal timestamps the last write wins.
//
// Durability contract (DESIGN.md §3): Append() returns after the points are
// written to the WAL (in the OS page cache); Sync() returns after the WAL is
// fsync'ed. With wal_sync == kEveryBatch, Append() itself syncs. A process
// crash loses nothing Append() acknowledged.
//
// Thread-safety: every method is safe to call concurrently from any thread.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/sample_iterator.h"
#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/storage/snapshot_source.h"

namespace sundial::storage {

enum class WalSyncMode : uint8_t {
  kEveryBatch,  // fsync before Append() returns
  kInterval,    // fsync every wal_sync_interval_ms on the maintenance thread
  kNone,        // never fsync explicitly (the OS decides)
};

class LateAppendObserver;  // below
class WalRetention;        // wal_reader.h
class WalReader;           // wal_reader.h
struct WalPosition;        // wal_reader.h
class ReadAhead;           // what WillRead kept in memory (defined by the engine)

struct StorageOptions {
  std::string data_dir;                        // created if missing
  Timestamp partition_duration_ms = 86400000;  // one day
  uint32_t page_size = 512;                    // bytes per page
  // Bytes of open (head) page buffers of all series together; beyond it
  // the maintenance thread seals the largest open pages early (0: no
  // limit). Bounds the memory of many series whose pages fill slowly.
  uint64_t head_memory_bytes = 0;
  WalSyncMode wal_sync = WalSyncMode::kInterval;
  uint32_t wal_sync_interval_ms = 1000;
  uint64_t wal_segment_bytes = 64ull << 20;
  uint64_t mmap_window_bytes = 8ull << 20;     // bounded mapping per window
  Timestamp retention_ms = 0;                  // 0 keeps data forever
  // How often the WAL is checkpointed (heads written to a checkpoint, old
  // segments removed) even if the segment is not full. 0 = only when full.
  // Such a checkpoint also waits until the WAL written since the last one is
  // twice that one's size, so that checkpoints cost little disk writing.
  uint32_t checkpoint_interval_ms = 300000;
  // ... and until at least this many WAL bytes were written since the last
  // one: a trickle is checkpointed by volume, not every interval (recovery
  // then replays at most about this much; a full segment still rotates).
  uint64_t checkpoint_min_wal_bytes = 4ull << 20;
  // A partition that ended this long ago (wall clock) is compacted into a
  // cold file: its pages merged per series, time-ordered, zstd-compressed.
  // 0 = never.
  Timestamp compact_after_ms = 0;
  // Snapshot() refuses (ResourceExhausted) while this many finished
  // snapshots exist; 0 turns snapshots off.
  uint32_t max_snapshots = 8;
  // ResolveSeries creates no series while this many exist: it answers
  // ResourceExhausted ("too many series ..."); known series still resolve.
  // AssignName (names without a series) stops at this many names per kind.
  // Each series costs memory for as long as it exists, so this bounds what
  // a client that makes up tag values can take. 0: no limit.
  uint64_t max_series = 0;
  // File descriptors the partition files may hold at once (an LRU: idle
  // files are closed and reopened on use), whatever the number of
  // partitions. With the WAL, the dictionary and rollups the engine stays
  // well under a default RLIMIT_NOFILE of 1024, leaving room for connections.
  uint32_t max_open_files = 256;
  // Partitions kept open at once (each holds up to two file descriptors
  // plus its mapped windows); the least recently used is closed beyond it.
  // The default leaves most of a default RLIMIT_NOFILE (1024) to connections.
  uint32_t max_open_partitions = 256;
  // A read-only engine (disk full) goes back to read-write once the data
  // dir's file system has this many bytes free.
  uint64_t resume_free_bytes = 16ull << 20;
  // Back-pressure: when sealed pages waiting for the maintenance thread
  // take more than this many bytes, Append waits (up to 2 s per call) until
  // the writer brings them back under it, so that a backfill faster than
  // the disk slows down rather than fills memory. 0 = no limit.
  uint64_t pending_budget_bytes = 8ull << 20;
  // Out-of-order pages kept open for partitions other than the one a
  // series' late points go to now (a backfill jumping between days) may
  // take this many bytes; beyond it such a page is sealed (written) as it
  // is, however small. 0 = always sealed.
  uint64_t ooo_park_budget_bytes = 4ull << 20;
  // Borrowed; must outlive the engine. Null: nobody is told about late points.
  LateAppendObserver* late_observer = nullptr;
  // Borrowed; must outlive the engine. Null: WAL segments are removed as
  // soon as a checkpoint covers them. Otherwise segments it still needs
  // are kept (the relay's unsent data).
  WalRetention* wal_retention = nullptr;
};

enum class NameKind : uint8_t { kMetric = 0, kTagKey = 1, kTagValue = 2 };

// A tag as seen by callers. Views borrow the caller's memory.
struct TagRef {
  std::string_view key;
  std::string_view value;
};

// A point bound for an already resolved series.
struct SeriesPoint {
  SeriesId series;
  Timestamp t;
  Value v;
};

// Told about appended points older than a watermark it chooses, so that
// data derived from closed time ranges (rollups) can be recomputed when late
// points land in them. The storage never interprets what the observer does.
//
// Calls: OnLateAppend() after a batch is applied (its points readable
// through NewIterator) when at least one point has t < late_watermark() as
// read after applying; also for such points replayed from the WAL during
// Open(). SyncLate() before WAL data is dropped (checkpoint, clean
// shutdown): everything told so far must then be durable.
// Thread-safety: called from any appending thread, concurrently.
class LateAppendObserver {
 public:
  virtual ~LateAppendObserver() = default;
  // Cheap and thread-safe; may only grow.
  virtual Timestamp late_watermark() const = 0;
  // The whole batch; the observer picks the points below its watermark.
  virtual void OnLateAppend(const SeriesPoint* points, size_t n) = 0;
  virtual Status SyncLate() = 0;
  // WAL files whose replay the observer needs no late points from: segments
  // numbered below this and checkpoints numbered up to it (everything in
  // them was applied before the observer last made its state durable, see
  // Storage::RotateWal). 0: every replayed late point is reported.
  virtual uint64_t wal_seen() const { return 0; }
};

// A series' identity, materialised. Tags sorted by key.
struct SeriesKey {
  std::string metric;
  std::vector<std::pair<std::string, std::string>> tags;
  uint32_t metric_uid = 0;
  std::vector<std::pair<uint32_t, uint32_t>> tag_uids;  // (tagk uid, tagv uid)
};

// A series' identity with its names borrowed from the storage that gave
// it: they stay valid while that storage is open (names are never
// removed). Tags sorted by key.
struct SeriesKeyRef {
  std::string_view metric;
  std::vector<std::pair<std::string_view, std::string_view>> tags;
  uint32_t metric_uid = 0;
  std::vector<std::pair<uint32_t, uint32_t>> tag_uids;  // (tagk uid, tagv uid)
};

// Counters for /api/stats and /metrics. Monotonic unless noted.
struct StorageStats {
  uint64_t points_appended = 0;
  uint64_t series_count = 0;       // gauge
  uint64_t wal_bytes_written = 0;
  uint64_t wal_syncs = 0;
  uint64_t pages_sealed = 0;
  uint64_t corruptions_skipped = 0;
  // Added after the first version of this header.
  uint64_t pages_written = 0;        // sealed pages written to page files
  uint64_t pages_pending = 0;        // gauge: sealed pages waiting for the disk
  uint64_t out_of_order_points = 0;  // points that arrived late or repeated
  uint64_t wal_write_errors = 0;
  uint64_t page_write_errors = 0;
  uint64_t checkpoints = 0;
  uint64_t partitions = 0;           // gauge: partitions open in memory
  uint64_t memory_bytes = 0;         // gauge: estimated heap used by the engine
  uint64_t disk_bytes = 0;           // gauge: page and index bytes of open partitions
  uint64_t partitions_compacted = 0;
  // Health (see Storage::health()).
  uint64_t read_only = 0;            // gauge: 1 while writes are refused
  uint64_t apply_errors = 0;         // points written to the WAL but not applied
  uint64_t partition_lru_closes = 0; // partitions closed to stay within max_open_partitions
  uint64_t open_files = 0;           // gauge: partition file descriptors open
  uint64_t file_closes = 0;          // descriptors closed to stay within max_open_files
  // Gauges: parts of memory_bytes (storage/README: memory per series).
  uint64_t memory_heads_bytes = 0;   // open in-order and out-of-order page builders
  uint64_t memory_series_bytes = 0;  // the MemSeries table
  uint64_t memory_dict_bytes = 0;    // series dictionary, names, tag sets, postings
  uint64_t heads_sealed_early = 0;   // heads sealed to stay within head_memory
  // Backfill memory (StorageOptions::pending_budget_bytes).
  uint64_t pending_bytes = 0;        // gauge: bytes of sealed pages waiting for the disk
  uint64_t pending_bytes_peak = 0;   // gauge: the most pending_bytes has been
  uint64_t append_waits = 0;         // Appends that waited for the writer (back-pressure)
  uint64_t page_count = 0;           // gauge: pages indexed in open partitions
  uint64_t ooo_parked_bytes = 0;     // gauge: parked out-of-order pages (ooo_park_budget_bytes)
  uint64_t pages_read = 0;           // sealed pages read from page and cold files by iterators
};

// Why writes are refused, if they are. Reads are always served.
struct StorageHealth {
  // Writes are refused for now: the disk is full (or the WAL could not be
  // opened). The maintenance thread checks for free space every few seconds
  // and goes back to read-write by itself.
  bool read_only = false;
  // Writes are refused until restart: a point reached the WAL but could not
  // be applied (LevelDB's sticky bg_error_). The WAL is kept (no checkpoint
  // removes it), so a restart replays the point.
  bool stopped = false;
  std::string reason;  // one line; empty when healthy
  // A short token for metrics tags: "none", "disk_full", "io_error",
  // "apply_failed".
  std::string cause = "none";
};

// One snapshot of the data dir (Storage::Snapshot).
struct SnapshotInfo {
  std::string name;
  std::string path;
  int64_t created_ms = 0;    // when it was taken (epoch ms)
  uint64_t bytes = 0;        // bytes of its files (hard-linked ones included)
  // Filled by Snapshot() only:
  uint64_t files_linked = 0;
  uint64_t files_copied = 0;
  uint64_t bytes_copied = 0;
  int64_t pause_us = 0;      // taking the WAL position (appends wait at most this)
};

class Storage {
 public:
  // Opens (creating if needed) the engine at options.data_dir, replays the
  // WAL and starts the maintenance thread. On success *out owns the engine.
  static Status Open(const StorageOptions& options, std::unique_ptr<Storage>* out);

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  // Seals and syncs everything and leaves an empty WAL (clean shutdown).
  virtual ~Storage() = default;

  // ---- Write path ----

  // Finds or creates the series metric{tags}. Tags may come in any order.
  // REQUIRES: names already validated by the caller (non-empty, allowed
  // characters, no duplicate keys).
  virtual Status ResolveSeries(std::string_view metric, const TagRef* tags,
                               size_t num_tags, SeriesId* id) = 0;

  // Appends points to the WAL and then to the head. All-or-nothing: on error
  // no point of the batch is acknowledged. While health() is not ok it
  // returns Unavailable ("storage is read-only: ..." or "storage stopped
  // writes: ..."): read-only clears when disk space returns, a stopped
  // engine needs a restart.
  virtual Status Append(const SeriesPoint* points, size_t n) = 0;

  // fsyncs everything appended before the call.
  virtual Status Sync() = 0;
  // Makes every series created so far durable (a no-op when it already
  // is, as it usually is): a file that names series ids, written outside
  // the engine (rollups), must not name one that a power cut could lose,
  // or the restart would give its id to another series.
  virtual Status SyncNewSeries() { return Sync(); }

  // ---- Read path ----

  // A new iterator over series `id` for points with start <= t <= end, in
  // time order, duplicates resolved (last write wins). Caller owns it.
  virtual std::unique_ptr<SampleIterator> NewIterator(SeriesId id, Timestamp start,
                                                      Timestamp end) = 0;
  // NewIterator for a series whose data over [start, end] a WillRead call
  // asked for (it counted the series in *covered): the iterator does not
  // ask the disk for it again, and takes what that call kept in memory
  // from there (kept may be null).
  virtual std::unique_ptr<SampleIterator> NewHintedIterator(SeriesId id, Timestamp start,
                                                            Timestamp end,
                                                            const ReadAhead* /*kept*/) {
    return NewIterator(id, start, end);
  }

  // The newest point of the series. NotFound if it has none.
  virtual Status LastPoint(SeriesId id, Sample* out) = 0;

  // A hint that the points of ids over [start, end] are about to be read,
  // in that order: an engine may start reading them from disk ahead (all
  // at once, so that the disk works on them in parallel), at most
  // max_bytes of them (small gaps between two stretches may be read
  // along). Returns the bytes of them it asked for, <= max_bytes, so that
  // a caller can spread one budget over several hints, and in *covered how
  // many of ids, from the first, had all of their data asked for (see
  // NewHintedIterator). With kept not null, an engine may also read them
  // into memory now and hand them back in *kept (null if it did not), for
  // NewHintedIterator; the caller keeps *kept while those iterators live.
  // Results never depend on it.
  virtual uint64_t WillRead(const std::vector<SeriesId>& /*ids*/, Timestamp /*start*/,
                            Timestamp /*end*/, uint64_t /*max_bytes*/, size_t* covered,
                            std::shared_ptr<const ReadAhead>* kept) {
    *covered = 0;
    if (kept != nullptr) kept->reset();
    return 0;
  }

  // Series ids of a metric, ascending. Empty if the metric is unknown.
  virtual std::vector<SeriesId> SeriesOfMetric(std::string_view metric) = 0;
  // Series ids having tag key=value, ascending.
  virtual std::vector<SeriesId> SeriesWithTag(std::string_view key,
                                              std::string_view value) = 0;
  // Series ids of metric having tag key with one of values, ascending,
  // each once: SeriesOfMetric(metric) intersected with the union of
  // SeriesWithTag(key, v) over values. This default does exactly that;
  // an engine may answer it in one pass.
  virtual std::vector<SeriesId> SeriesOfMetricWithTag(std::string_view metric,
                                                      std::string_view key,
                                                      const std::vector<std::string>& values) {
    const std::vector<SeriesId> ids = SeriesOfMetric(metric);
    std::vector<SeriesId> out;
    for (const std::string& v : values) {
      const std::vector<SeriesId> with = SeriesWithTag(key, v);
      std::set_intersection(ids.begin(), ids.end(), with.begin(), with.end(),
                            std::back_inserter(out));
    }
    if (values.size() > 1) {
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
    return out;
  }
  // NotFound if id is unknown.
  virtual Status GetSeriesKey(SeriesId id, SeriesKey* out) = 0;
  // The same without copying the names. NotFound if id is unknown.
  virtual Status GetSeriesKeyRef(SeriesId id, SeriesKeyRef* out) = 0;
  // The uid of a name of a kind. NotFound if the name was never seen.
  virtual Status LookupUid(NameKind kind, std::string_view name, uint32_t* uid) = 0;
  // Interns name without creating a series (/api/uid/assign): *uid is its
  // uid and *created says whether it was new. The new name is synced before
  // this returns. ResourceExhausted when the kind already has
  // StorageOptions::max_series names. Engines that cannot return
  // InvalidArgument.
  virtual Status AssignName(NameKind /*kind*/, std::string_view /*name*/, uint32_t* /*uid*/,
                            bool* /*created*/) {
    return Status::InvalidArgument("assigning names is not supported");
  }
  // The name of a uid of a kind. NotFound if the uid was never assigned.
  virtual Status NameOfUid(NameKind /*kind*/, uint32_t /*uid*/, std::string* /*name*/) {
    return Status::NotFound("unknown uid");
  }
  // Renames a name of a kind (/api/uid/rename): its uid, and so every
  // series using it and their points, keep everything; only the text
  // changes. Durable (one checksummed record, synced) before it returns.
  // NotFound if from is unknown, InvalidArgument if to is taken.
  virtual Status RenameName(NameKind /*kind*/, std::string_view /*from*/,
                            std::string_view /*to*/) {
    return Status::InvalidArgument("renaming names is not supported");
  }
  // A counter that grows with every rename, or null if names never change.
  // Writers that cache name -> series mappings drop them when it moves.
  // The pointer stays valid while the storage is open.
  virtual const std::atomic<uint64_t>* name_epoch() { return nullptr; }
  // Names of a kind starting with prefix, sorted, at most max (0 = no limit).
  virtual std::vector<std::string> SuggestNames(NameKind kind, std::string_view prefix,
                                                size_t max) = 0;

  virtual StorageStats stats() = 0;

  // Whether writes are accepted, and why not. Cheap; safe from any thread.
  virtual StorageHealth health() { return {}; }

  // What Open() skipped or repaired (damaged WAL records, pages, indexes),
  // one line each, for the server to log at startup. Later damage found
  // while reading is appended too. Never throws; empty when all was well.
  virtual std::vector<std::string> recovery_warnings() { return {}; }

  // Every time partition's [start, end), ascending (data may exist only
  // inside these ranges). Empty for engines without partitions.
  virtual std::vector<std::pair<Timestamp, Timestamp>> PartitionRanges() { return {}; }

  // ---- Deletion and snapshots (README "Deleting data", "Backup and restore") ----

  // Removes the points of series ids with start <= t <= end appended
  // before the call; points appended after it stay. Durable like Append:
  // the delete is in the WAL before anything is removed, so a crash leaves
  // it done or not done. With hide_empty, series left without points are
  // not listed by SeriesOfMetric/SeriesWithTag/SeriesOfMetricWithTag until
  // a point is written to them again; *hidden (may be null) counts them.
  virtual Status DeleteRange(const std::vector<SeriesId>& ids, Timestamp start, Timestamp end,
                             bool hide_empty, size_t* hidden) {
    (void)ids, (void)start, (void)end, (void)hide_empty, (void)hidden;
    return Status::Unavailable("this storage cannot delete");
  }
  // Writes a consistent copy of the data dir, as it was at one moment
  // during the call, to <data_dir>/snapshots/<name> while appends go on
  // (they wait only while the WAL position is taken). An empty name makes
  // one from the UTC time (out->name). InvalidArgument for a bad name
  // ('/', ".."), Busy if it exists, ResourceExhausted when
  // StorageOptions::max_snapshots exist already; on error (a full disk: the message has
  // "No space left") the partial copy is removed.
  // Each of `sources` (borrowed for the call; may be empty) adds one file
  // the engine does not own (the meta store's meta.log), captured right
  // after the snapshot moment (SnapshotSource::CaptureSnapshot); a source
  // that fails fails the snapshot.
  virtual Status Snapshot(const std::string& name, const std::vector<SnapshotSource*>& sources,
                          SnapshotInfo* out) {
    (void)name, (void)sources, (void)out;
    return Status::Unavailable("this storage cannot take snapshots");
  }
  // The finished snapshots, by name.
  virtual std::vector<SnapshotInfo> ListSnapshots() { return {}; }
  // NotFound if there is no such snapshot; InvalidArgument for a bad name.
  virtual Status RemoveSnapshot(const std::string& name) {
    return Status::NotFound("no such snapshot", name);
  }

  // How many times stored points were removed (retention dropping
  // partitions, deletions) so far. It changes after the points are gone, so anything
  // derived from points read after an earlier value may be stale once it
  // differs. 0 for engines that never remove points.
  virtual uint64_t removals() { return 0; }

  // A reader of the WAL starting at `from` (wal_reader.h), for the relay.
  // Caller owns it; it must not outlive the engine. Unavailable for
  // engines without a WAL.
  // Starts a new WAL segment and sets *seq to its number: every point
  // applied before the call is in an older segment or checkpoint (see
  // LateAppendObserver::wal_seen). Unavailable where there is no WAL.
  virtual Status RotateWal(uint64_t* seq) {
    (void)seq;
    return Status::Unavailable("no WAL");
  }
  virtual Status NewWalReader(const WalPosition& from, std::unique_ptr<WalReader>* out) {
    (void)from;
    (void)out;
    return Status::Unavailable("this storage has no write-ahead log");
  }
};

}  // namespace sundial::storage
