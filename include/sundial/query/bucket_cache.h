// BucketCache: the downsampled buckets of single series, kept between
// queries, so that a dashboard asking again for the same time range (or
// for a range that slid forward) does not decode and fold the same raw
// points again. VictoriaMetrics and Prometheus front-ends cache results in
// the same spirit; this cache is exact.
//
// What an entry holds: for one series and one fixed-interval downsampler
// (interval and function), the non-empty buckets that downsampling the
// series' raw points in [lo, hi) gave. The buckets at lo and hi may be cut
// there; the engine reuses a bucket only where its query cuts it the same
// way (cached_source.h).
//
// Why it is exact: an entry is used only if nothing that could change it
// has happened since its raw points were read.
//  - Nothing at or above the watermark is cached. The watermark trails the
//    wall clock by kLagMs, is raised before each read (AdvanceWatermark) and
//    never goes down. Points newer than it (the live edge) are always read.
//  - A point appended below the watermark is a late point: the storage
//    tells this cache (it is a LateAppendObserver), which changes the stamp
//    of the point's series. Entries carry the stamp read before their raw
//    points were, and are used only while it is unchanged.
//  - Data removed by retention changes the storage's removal count, which
//    is part of the stamp too.
// Stamps live in kSlots slots indexed by series id, so a late point also
// retires the entries of the series sharing its slot: a needless miss,
// never a stale hit.
//
// An entry may also keep each bucket's value as /api/query prints it, so
// that a query whose output point is a cached bucket unchanged (one series
// in its group, an aggregator that keeps a single value) copies the text
// instead of formatting the double again.
//
// Memory: at most max_bytes of entries (their buckets, texts and
// bookkeeping); the least recently used go first.
// Thread-safety: every method is safe to call concurrently.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "sundial/common/mutex.h"
#include "sundial/common/types.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

struct Aggregator;

class BucketCache final : public storage::LateAppendObserver {
 public:
  // How far the watermark trails the wall clock: points up to this late
  // (a collector's usual delay) cost no invalidation.
  static constexpr Timestamp kLagMs = 60 * 1000;
  static constexpr size_t kSlots = 4096;

  struct Bucket {
    Timestamp t;  // bucket start
    double v;     // downsampled value (downsampling yields doubles)
  };
  struct Key {
    SeriesId series = 0;
    int64_t interval_ms = 0;
    const Aggregator* fn = nullptr;  // from the static aggregator table
    bool operator==(const Key& o) const {
      return series == o.series && interval_ms == o.interval_ms && fn == o.fn;
    }
  };
  // What an entry was read under; it serves only while StampOf is equal.
  struct Stamp {
    uint32_t slot = 0;
    uint64_t removals = 0;
    bool operator==(const Stamp& o) const { return slot == o.slot && removals == o.removals; }
  };
  struct Entry {
    Timestamp lo = 0;  // raw range downsampled: [lo, hi)
    Timestamp hi = 0;
    std::vector<Bucket> buckets;  // non-empty buckets, ascending
    // Empty, or the value texts (AppendJavaDouble of buckets[i].v) one
    // after the other, text_len[i] bytes each; 0 for a value without one
    // (NaN, whose text depends on the fill policy).
    std::string value_text;
    std::vector<uint8_t> text_len;
  };
  // Entries are shared, never changed once stored.
  using EntryPtr = std::shared_ptr<const Entry>;
  struct Counters {
    uint64_t hits = 0;    // lookups that found a usable entry
    uint64_t misses = 0;  // lookups that did not
    uint64_t entries = 0;
    uint64_t bytes = 0;
  };

  explicit BucketCache(size_t max_bytes);
  BucketCache(const BucketCache&) = delete;
  BucketCache& operator=(const BucketCache&) = delete;

  // Raises the watermark to now_ms - kLagMs if that is higher and returns
  // it. Call before reading the raw points whose buckets may be stored.
  Timestamp AdvanceWatermark(Timestamp now_ms);
  // The stamp of series now; read it before reading its raw points.
  // removals: the storage's Storage::removals(), read at the same time.
  Stamp StampOf(SeriesId series, uint64_t removals) const;
  // Sets *out to the entry of key if it was stored under stamp.
  bool Find(const Key& key, const Stamp& stamp, EntryPtr* out) EXCLUDES(mu_);
  // Stores (replaces) the entry of key. REQUIRES: e.hi <= the watermark
  // returned before its points were read, stamp read before them too.
  void Put(const Key& key, const Stamp& stamp, Entry e) EXCLUDES(mu_);
  Counters counters() const EXCLUDES(mu_);
  size_t max_bytes() const { return max_bytes_; }
  // What e counts against max_bytes once stored.
  static size_t BytesOf(const Entry& e);

  // storage::LateAppendObserver
  Timestamp late_watermark() const override { return watermark_.load(); }
  void OnLateAppend(const storage::SeriesPoint* points, size_t n) override;
  Status SyncLate() override { return Status::OK(); }
  // Empty after a start: no replayed point can be stale in it.
  uint64_t wal_seen() const override { return UINT64_MAX; }

 private:
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return (static_cast<size_t>(k.series) * 0x9E3779B1u) ^
             static_cast<size_t>(k.interval_ms) ^ reinterpret_cast<uintptr_t>(k.fn);
    }
  };
  struct Node {
    Key key;
    Stamp stamp;
    EntryPtr entry;
    size_t bytes = 0;
  };
  using Lru = std::list<Node>;  // most recently used first

  static size_t SlotOf(SeriesId series) { return series % kSlots; }
  void EvictOver(size_t limit) REQUIRES(mu_);

  const size_t max_bytes_;
  std::atomic<Timestamp> watermark_{kMinTimestamp};
  std::atomic<uint32_t> late_seq_{0};
  std::unique_ptr<std::atomic<uint32_t>[]> slots_;
  mutable Mutex mu_;
  Lru lru_ GUARDED_BY(mu_);
  std::unordered_map<Key, Lru::iterator, KeyHash> index_ GUARDED_BY(mu_);
  size_t bytes_ GUARDED_BY(mu_) = 0;
  uint64_t hits_ GUARDED_BY(mu_) = 0;
  uint64_t misses_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::query
