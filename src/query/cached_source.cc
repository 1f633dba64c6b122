#include "cached_source.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

#include "sundial/query/json_format.h"

namespace sundial::query {
namespace {

Timestamp AlignDown(Timestamp t, Timestamp iv) {
  Timestamp r = t % iv;
  if (r < 0) r += iv;
  return t - r;
}

Timestamp AlignUp(Timestamp t, Timestamp iv) {
  const Timestamp d = AlignDown(t, iv);
  return d == t ? t : d + iv;
}

// Where a new entry's buckets came from an older entry: e's buckets
// [at, at + n) are src's [first, first + n), whose texts start at offset.
struct Reused {
  const BucketCache::Entry* src = nullptr;  // null: none
  size_t at = 0, n = 0, first = 0, offset = 0;
};

// Fills e's value texts: what ResultWriter prints for each value, NaN
// excepted. Reused buckets copy the older entry's texts.
void FormatValues(const Reused& r, BucketCache::Entry* e) {
  const size_t size = e->buckets.size();
  e->text_len.reserve(size);
  e->value_text.reserve(6 * size);
  const bool copy = r.src != nullptr && !r.src->text_len.empty();
  size_t from = r.offset;
  for (size_t i = 0; i < size; ++i) {
    const size_t before = e->value_text.size();
    if (copy && i >= r.at && i < r.at + r.n) {
      const uint8_t len = r.src->text_len[r.first + (i - r.at)];
      e->value_text.append(r.src->value_text, from, len);
      from += len;
    } else if (!std::isnan(e->buckets[i].v)) {
      AppendJavaDouble(e->buckets[i].v, &e->value_text);
    }
    e->text_len.push_back(static_cast<uint8_t>(e->value_text.size() - before));
  }
}

}  // namespace

bool CacheEligible(const SubQuery& q) {
  const DownsampleSpec& d = q.downsample;
  return d.enabled && !d.all && !d.calendar && d.interval_ms > 0 && d.fn != nullptr;
}

CachedDownsampleSource::CachedDownsampleSource(storage::Storage* storage, const CacheUse& use,
                                               SeriesId id, const DownsampleContext& ctx,
                                               QueryBudget* budget)
    : storage_(storage),
      use_(use),
      ctx_(ctx),
      budget_(budget),
      lo_(ctx.scan_start_ms),
      hi_(ctx.scan_end_ms),
      interval_(ctx.spec->interval_ms),
      key_{id, interval_, ctx.spec->fn},
      stamp_(use_.cache->StampOf(id, use_.removals)) {
  // The reused part [p, q) of the window; empty (p == q == hi) without one.
  Timestamp p = hi_, q = hi_;
  BucketCache::EntryPtr e;
  if (use_.cache->Find(key_, stamp_, &e)) {
    const Timestamp a = std::max(lo_, e->lo), b = std::min(hi_, e->hi);
    // An edge bucket is the same in both only if both cut it at the same
    // time; otherwise reuse starts (ends) at the next bucket boundary.
    const Timestamp pa = lo_ == e->lo ? a : AlignUp(a, interval_);
    const Timestamp qb = hi_ == e->hi ? b : AlignDown(b, interval_);
    if (a < b && pa < qb) {
      p = pa;
      q = qb;
      // Reuse the buckets overlapping [p, q); usually all of them.
      const auto& k = e->buckets;
      const Timestamp iv = interval_;
      cached_end_ = static_cast<size_t>(
          std::lower_bound(k.begin(), k.end(), q,
                           [](const BucketCache::Bucket& x, Timestamp t) { return x.t < t; }) -
          k.begin());
      cached_pos_ = static_cast<size_t>(
          std::lower_bound(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(cached_end_), p,
                           [iv](const BucketCache::Bucket& x, Timestamp t) {
                             return x.t + iv <= t;
                           }) -
          k.begin());
      text_pos_ = cached_pos_;
      if (!e->text_len.empty()) {
        for (size_t i = 0; i < cached_pos_; ++i) text_off_ += e->text_len[i];
      }
      first_cached_ = cached_pos_;
      first_text_off_ = text_off_;
      entry_ = std::move(e);
    }
  }
  front_ = Segment(lo_, p);
  tail_ = Segment(q, hi_);
  collecting_ = front_ != nullptr || tail_ != nullptr;
}

CachedDownsampleSource::~CachedDownsampleSource() { StopCollecting(); }

std::unique_ptr<PointSource> CachedDownsampleSource::Segment(Timestamp a, Timestamp b) {
  if (a >= b) return nullptr;
  return NewDownsampleSource(
      std::make_unique<RawSource>(storage_->NewIterator(key_.series, a, b - 1), budget_), ctx_);
}

bool CachedDownsampleSource::Advance(Point* p) {
  for (;;) {
    switch (phase_) {
      case Phase::kFront:
        if (front_ != nullptr && front_->Next(p)) {
          Keep(*p);
          return true;
        }
        phase_ = Phase::kCached;
        reused_at_ = out_.size();
        break;
      case Phase::kCached:
        if (cached_pos_ < cached_end_) {
          TakeCached(p);
          Keep(*p);
          return true;
        }
        phase_ = Phase::kTail;
        break;
      case Phase::kTail:
        if (tail_ != nullptr && tail_->Next(p)) {
          Keep(*p);
          return true;
        }
        phase_ = Phase::kDone;
        StoreBack();
        return false;
      case Phase::kDone:
        return false;
    }
  }
}

bool CachedDownsampleSource::CachedText(Timestamp t, const Value& v, std::string_view* text) {
  if (entry_ == nullptr || entry_->text_len.empty() || v.is_int()) return false;
  const auto& k = entry_->buckets;
  while (text_pos_ < cached_end_ && k[text_pos_].t < t) text_off_ += entry_->text_len[text_pos_++];
  if (text_pos_ == cached_end_ || k[text_pos_].t != t) return false;
  const size_t len = entry_->text_len[text_pos_];
  const double cached = k[text_pos_].v, asked = v.float_value();
  if (len == 0 || std::memcmp(&cached, &asked, sizeof(double)) != 0) return false;
  *text = std::string_view(entry_->value_text.data() + text_off_, len);
  return true;
}

void CachedDownsampleSource::Keep(const Point& p) {
  if (!collecting_) return;  // all from the cache, or no room
  if (p.v.is_int()) return StopCollecting();  // downsampling yields doubles; never guess
  if (out_.size() == out_.capacity()) {
    const size_t grown = std::max<size_t>(64, 2 * out_.capacity()) * sizeof(BucketCache::Bucket);
    const size_t more = grown - out_bytes_;
    // Taken first, then given back if over: groups of a query may run at
    // once (query_engine.cc, RunGroupsInParallel).
    const size_t was = use_.collected->fetch_add(more, std::memory_order_relaxed);
    if (was + more > use_.cache->max_bytes()) {
      use_.collected->fetch_sub(more, std::memory_order_relaxed);
      return StopCollecting();
    }
    out_.reserve(grown / sizeof(BucketCache::Bucket));
    out_bytes_ = grown;
  }
  out_.push_back(BucketCache::Bucket{p.t, p.v.float_value()});
}

void CachedDownsampleSource::StopCollecting() {
  collecting_ = false;
  if (out_bytes_ != 0) use_.collected->fetch_sub(out_bytes_, std::memory_order_relaxed);
  out_bytes_ = 0;
  std::vector<BucketCache::Bucket>().swap(out_);
}

void CachedDownsampleSource::StoreBack() {
  if (!collecting_ || !budget_->status().ok() || use_.watermark <= lo_) return StopCollecting();
  // Above the watermark only whole buckets below it are kept.
  const Timestamp end = hi_ <= use_.watermark ? hi_ : AlignDown(use_.watermark, interval_);
  if (end <= lo_) return;
  BucketCache::Entry e;
  e.lo = lo_;
  e.hi = end;
  const auto stop = std::lower_bound(
      out_.begin(), out_.end(), end,
      [](const BucketCache::Bucket& k, Timestamp t) { return k.t < t; });
  e.buckets.assign(out_.begin(), stop);
  StopCollecting();
  Reused r;
  if (entry_ != nullptr) {
    r = Reused{entry_.get(), reused_at_, cached_end_ - first_cached_, first_cached_,
               first_text_off_};
    r.n = std::min(r.n, e.buckets.size() - std::min(r.at, e.buckets.size()));
  }
  FormatValues(r, &e);
  if (use_.deferred != nullptr) {
    // Kept counted until settled; dropped, as a source that could not
    // collect, when it would pass the cache's size.
    const size_t bytes = BucketCache::BytesOf(e);
    const size_t was = use_.collected->fetch_add(bytes, std::memory_order_relaxed);
    if (was + bytes > use_.cache->max_bytes()) {
      use_.collected->fetch_sub(bytes, std::memory_order_relaxed);
      return;
    }
    use_.deferred->push_back(DeferredPut{key_, stamp_, std::move(e), bytes});
  } else {
    use_.cache->Put(key_, stamp_, std::move(e));
  }
}

void SettleDeferred(const CacheUse& use, std::vector<DeferredPut>* puts, bool store) {
  for (DeferredPut& d : *puts) {
    if (store) use.cache->Put(d.key, d.stamp, std::move(d.entry));
    use.collected->fetch_sub(d.bytes, std::memory_order_relaxed);
  }
  puts->clear();
}

}  // namespace sundial::query
