// Planner hook: fixed-interval downsampling answered partly from the
// bucket cache (sundial/query/bucket_cache.h).
//
// CachedDownsampleSource produces exactly the points NewDownsampleSource
// would over the series' raw points in the scan window [lo, hi): buckets
// the cache holds for the same cut of the window come from there, the rest
// (the window's new edges, the live edge above the watermark) are read and
// downsampled as usual. When it has run to its end within the budget, the
// window's buckets below the watermark are stored back, for the next query.
//
// A bucket is reused only where the window and the entry cut it the same:
// interior buckets always, a bucket at an edge only if that edge is the
// same time in both (or on the bucket boundary).
//
// Thread-safety: one query thread owns a source.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>
#include <vector>

#include "series_source.h"
#include "sundial/query/bucket_cache.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

// An entry a source would have stored, kept to be stored later
// (SettleDeferred); its bytes count in CacheUse::collected meanwhile.
struct DeferredPut {
  BucketCache::Key key;
  BucketCache::Stamp stamp;
  BucketCache::Entry entry;
  size_t bytes = 0;
};

// What a query read under: taken once, before any raw point is read.
struct CacheUse {
  BucketCache* cache = nullptr;
  Timestamp watermark = 0;  // cache->AdvanceWatermark(now)
  uint64_t removals = 0;    // storage->removals()
  // Bytes the query's sources hold for storing back, together; a source
  // that would take it past cache->max_bytes() stops collecting (its
  // buckets could not all be kept anyway). Keeps a query over many long
  // series from holding every bucket it streams. Must not be null.
  std::atomic<size_t>* collected = nullptr;
  // Null, or where sources leave their entries instead of storing them: a
  // group run at once with others stores its entries only once the query
  // knows the group's result stands (query_engine.cc).
  std::vector<DeferredPut>* deferred = nullptr;
};

// Stores the entries in *puts in use.cache if store, and empties *puts,
// giving their bytes back to *use.collected.
void SettleDeferred(const CacheUse& use, std::vector<DeferredPut>* puts, bool store);

// True when q's downsampling can use the cache: a fixed interval (not
// calendar, not "all").
bool CacheEligible(const SubQuery& q);

class CachedDownsampleSource final : public PointSource {
 public:
  // Pointers are borrowed. REQUIRES: CacheEligible(q) for ctx's spec.
  CachedDownsampleSource(storage::Storage* storage, const CacheUse& use, SeriesId id,
                         const DownsampleContext& ctx, QueryBudget* budget);
  ~CachedDownsampleSource() override;
  // Reads ahead to the first point. False if there is none.
  bool Prime() {
    have_next_ = Advance(&next_);
    return have_next_;
  }
  bool Next(Point* p) override {
    if (have_next_) {
      *p = next_;
      have_next_ = false;
      return true;
    }
    if (phase_ == Phase::kCached && cached_pos_ < cached_end_ && !collecting_) {
      TakeCached(p);  // Advance's most common step, inline: nothing to keep
      return true;
    }
    return Advance(p);
  }
  // For output points asked in ascending time: *text is how /api/query
  // prints v if (t, v) is a bucket reused from the cache with that exact
  // value and its entry kept the text. Valid while this source lives.
  bool CachedText(Timestamp t, const Value& v, std::string_view* text);

 private:
  enum class Phase { kFront, kCached, kTail, kDone };
  // A downsampler over the raw points in [a, b), or null if a >= b.
  std::unique_ptr<PointSource> Segment(Timestamp a, Timestamp b);
  bool Advance(Point* p);
  // The next reused bucket. REQUIRES: cached_pos_ < cached_end_.
  void TakeCached(Point* p) {
    const BucketCache::Bucket& k = entry_->buckets[cached_pos_++];
    p->t = k.t;
    p->v = Value::Float(k.v);
  }
  void Keep(const Point& p);
  void StopCollecting();  // frees out_ and its share of use_.collected
  void StoreBack();  // at the end

  storage::Storage* const storage_;
  const CacheUse use_;
  const DownsampleContext ctx_;
  QueryBudget* const budget_;
  const Timestamp lo_, hi_, interval_;
  const BucketCache::Key key_;      // key_.series is the series read
  const BucketCache::Stamp stamp_;  // read before any raw point
  Phase phase_ = Phase::kFront;
  std::unique_ptr<PointSource> front_, tail_;  // raw parts, may be null
  BucketCache::EntryPtr entry_;  // the reused part is its buckets [cached_pos_, cached_end_)
  size_t cached_pos_ = 0;
  size_t cached_end_ = 0;
  size_t text_pos_ = 0;  // CachedText's cursor: bucket index, and its text's offset
  size_t text_off_ = 0;
  size_t first_cached_ = 0;    // where the reused buckets start in entry_,
  size_t first_text_off_ = 0;  // their texts there,
  size_t reused_at_ = 0;       // and in out_
  bool collecting_ = false;                    // a raw part exists and out_ has room
  std::vector<BucketCache::Bucket> out_;       // every bucket produced
  size_t out_bytes_ = 0;                       // out_'s share of *use_.collected
  bool have_next_ = false;
  Point next_;
};

}  // namespace sundial::query
