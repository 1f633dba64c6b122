// Tests of the bucket cache's own contract (sundial/query/bucket_cache.h):
// entries found only under the stamp they were stored with, late points
// below the watermark retiring their series' slot, a watermark that never
// goes down, LRU eviction within max_bytes, and the counters. The cache
// against real queries is in bucket_cache_diff_test.cc.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

#include "mem_storage.h"
#include "sundial/query/aggregator.h"
#include "sundial/query/bucket_cache.h"
#include "sundial/query/query_engine.h"
#include "sundial/storage/storage.h"

namespace sundial::query {
namespace {

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kDayMs = 24 * 60 * kMinuteMs;

// ---- the cache alone ----

BucketCache::Entry MakeEntry(Timestamp lo, size_t n) {
  BucketCache::Entry e;
  e.lo = lo;
  e.hi = lo + static_cast<Timestamp>(n) * kMinuteMs;
  for (size_t i = 0; i < n; ++i) {
    e.buckets.push_back({lo + static_cast<Timestamp>(i) * kMinuteMs, 0.5 * static_cast<double>(i)});
  }
  e.buckets.shrink_to_fit();
  return e;
}

BucketCache::Key KeyOf(SeriesId id, int64_t interval = kMinuteMs, const char* fn = "avg") {
  return BucketCache::Key{id, interval, FindAggregator(fn)};
}

TEST(BucketCache, FindAfterPut) {
  BucketCache cache(1 << 20);
  const BucketCache::Stamp stamp = cache.StampOf(7, 0);
  cache.Put(KeyOf(7), stamp, MakeEntry(60 * kMinuteMs, 5));
  BucketCache::EntryPtr got;
  ASSERT_TRUE(cache.Find(KeyOf(7), stamp, &got));
  EXPECT_EQ(got->lo, 60 * kMinuteMs);
  EXPECT_EQ(got->hi, 65 * kMinuteMs);
  ASSERT_EQ(got->buckets.size(), 5u);
  EXPECT_EQ(got->buckets[3].t, 63 * kMinuteMs);
  EXPECT_EQ(got->buckets[3].v, 1.5);
  // Another series, interval or function is another key.
  EXPECT_FALSE(cache.Find(KeyOf(8), cache.StampOf(8, 0), &got));
  EXPECT_FALSE(cache.Find(KeyOf(7, 2 * kMinuteMs), stamp, &got));
  EXPECT_FALSE(cache.Find(KeyOf(7, kMinuteMs, "sum"), stamp, &got));
  // Put replaces.
  cache.Put(KeyOf(7), stamp, MakeEntry(0, 2));
  ASSERT_TRUE(cache.Find(KeyOf(7), stamp, &got));
  EXPECT_EQ(got->lo, 0);
  EXPECT_EQ(got->buckets.size(), 2u);
  EXPECT_EQ(cache.counters().entries, 1u);
}

TEST(BucketCache, DifferentStampMisses) {
  BucketCache cache(1 << 20);
  const BucketCache::Stamp stamp = cache.StampOf(3, 4);
  cache.Put(KeyOf(3), stamp, MakeEntry(0, 3));
  BucketCache::EntryPtr got;
  BucketCache::Stamp other = stamp;
  other.slot += 1;
  EXPECT_FALSE(cache.Find(KeyOf(3), other, &got));
  EXPECT_FALSE(cache.Find(KeyOf(3), cache.StampOf(3, 5), &got));  // a removal since
  EXPECT_TRUE(cache.Find(KeyOf(3), cache.StampOf(3, 4), &got));
}

TEST(BucketCache, LatePointBelowWatermarkRetiresItsSlot) {
  BucketCache cache(1 << 20);
  // Before any watermark nothing is late.
  EXPECT_EQ(cache.late_watermark(), kMinTimestamp);
  const BucketCache::Stamp s5 = cache.StampOf(5, 0);
  storage::SeriesPoint early{5, 0, Value::Int(1)};
  cache.OnLateAppend(&early, 1);
  EXPECT_EQ(cache.StampOf(5, 0), s5);

  const Timestamp now = 10 * kDayMs;
  const Timestamp mark = cache.AdvanceWatermark(now);
  EXPECT_EQ(mark, now - BucketCache::kLagMs);
  EXPECT_EQ(cache.late_watermark(), mark);
  cache.Put(KeyOf(5), s5, MakeEntry(0, 4));

  // At or above the watermark: not late, nothing changes.
  storage::SeriesPoint live[2] = {{5, mark, Value::Int(1)}, {5, mark + 5, Value::Float(2.5)}};
  cache.OnLateAppend(live, 2);
  EXPECT_EQ(cache.StampOf(5, 0), s5);
  BucketCache::EntryPtr got;
  EXPECT_TRUE(cache.Find(KeyOf(5), cache.StampOf(5, 0), &got));

  const BucketCache::Stamp s6 = cache.StampOf(6, 0);
  const BucketCache::Stamp s_far = cache.StampOf(5 + BucketCache::kSlots + 1, 0);
  // One point below the watermark among others that are not.
  storage::SeriesPoint batch[3] = {{6, mark + 1, Value::Int(1)},
                                   {5, mark - 1, Value::Int(2)},
                                   {6, mark, Value::Int(3)}};
  cache.OnLateAppend(batch, 3);
  EXPECT_FALSE(cache.StampOf(5, 0) == s5);
  EXPECT_EQ(cache.StampOf(6, 0), s6);                              // another slot
  EXPECT_EQ(cache.StampOf(5 + BucketCache::kSlots + 1, 0), s_far);  // another slot
  EXPECT_FALSE(cache.Find(KeyOf(5), cache.StampOf(5, 0), &got));   // retired

  // A series sharing the slot is retired too (a needless miss, never stale).
  const BucketCache::Stamp shared = cache.StampOf(5 + BucketCache::kSlots, 0);
  storage::SeriesPoint again{5, 0, Value::Int(4)};
  cache.OnLateAppend(&again, 1);
  EXPECT_FALSE(cache.StampOf(5 + BucketCache::kSlots, 0) == shared);

  // Every late batch gives a new stamp, even for the same series.
  const BucketCache::Stamp before = cache.StampOf(5, 0);
  cache.OnLateAppend(&again, 1);
  EXPECT_FALSE(cache.StampOf(5, 0) == before);
}

TEST(BucketCache, WatermarkNeverGoesDown) {
  BucketCache cache(1 << 20);
  const Timestamp high = cache.AdvanceWatermark(5 * kDayMs);
  EXPECT_EQ(high, 5 * kDayMs - BucketCache::kLagMs);
  EXPECT_EQ(cache.AdvanceWatermark(4 * kDayMs), high);
  EXPECT_EQ(cache.late_watermark(), high);
  EXPECT_EQ(cache.AdvanceWatermark(5 * kDayMs), high);
  EXPECT_EQ(cache.AdvanceWatermark(6 * kDayMs), 6 * kDayMs - BucketCache::kLagMs);
  // A point between the old and the new watermark is late now.
  const BucketCache::Stamp s = cache.StampOf(1, 0);
  storage::SeriesPoint p{1, 5 * kDayMs + 1, Value::Int(0)};
  cache.OnLateAppend(&p, 1);
  EXPECT_FALSE(cache.StampOf(1, 0) == s);
}

TEST(BucketCache, EvictsLeastRecentlyUsedWithinMaxBytes) {
  // Learn what one entry of 10 buckets costs, then make room for 3.5.
  size_t one = 0;
  {
    BucketCache probe(1 << 20);
    probe.Put(KeyOf(1), probe.StampOf(1, 0), MakeEntry(0, 10));
    one = static_cast<size_t>(probe.counters().bytes);
  }
  ASSERT_GT(one, 10 * sizeof(BucketCache::Bucket) - 1);
  const size_t max = one * 7 / 2;
  BucketCache cache(max);
  const BucketCache::Stamp st = cache.StampOf(0, 0);  // no late points: same for all
  BucketCache::EntryPtr got;
  for (SeriesId id : {1, 2, 3}) cache.Put(KeyOf(id), st, MakeEntry(0, 10));
  EXPECT_EQ(cache.counters().entries, 3u);
  EXPECT_EQ(cache.counters().bytes, 3 * one);
  ASSERT_TRUE(cache.Find(KeyOf(1), st, &got));  // 1 is now the most recent; 2 the least
  cache.Put(KeyOf(4), st, MakeEntry(0, 10));
  EXPECT_EQ(cache.counters().entries, 3u);
  EXPECT_LE(cache.counters().bytes, max);
  EXPECT_FALSE(cache.Find(KeyOf(2), st, &got));
  EXPECT_TRUE(cache.Find(KeyOf(1), st, &got));
  EXPECT_TRUE(cache.Find(KeyOf(3), st, &got));
  EXPECT_TRUE(cache.Find(KeyOf(4), st, &got));
  // Order now (most recent first): 4 3 1. A double-size entry evicts 1 and 3.
  cache.Put(KeyOf(5), st, MakeEntry(0, 20));
  EXPECT_LE(cache.counters().bytes, max);
  EXPECT_TRUE(cache.Find(KeyOf(4), st, &got));
  EXPECT_TRUE(cache.Find(KeyOf(5), st, &got));
  EXPECT_FALSE(cache.Find(KeyOf(1), st, &got));
  EXPECT_FALSE(cache.Find(KeyOf(3), st, &got));
  // Replacing an entry accounts its bytes once.
  const uint64_t bytes = cache.counters().bytes;
  cache.Put(KeyOf(4), st, MakeEntry(0, 10));
  EXPECT_EQ(cache.counters().bytes, bytes);
  EXPECT_EQ(cache.counters().entries, 2u);
}

TEST(BucketCache, EntryLargerThanMaxBytesIsNotStored) {
  BucketCache cache(1000);
  const BucketCache::Stamp st = cache.StampOf(1, 0);
  cache.Put(KeyOf(1), st, MakeEntry(0, 1000));
  BucketCache::EntryPtr got;
  EXPECT_FALSE(cache.Find(KeyOf(1), st, &got));
  EXPECT_EQ(cache.counters().entries, 0u);
  EXPECT_EQ(cache.counters().bytes, 0u);
  cache.Put(KeyOf(1), st, MakeEntry(0, 2));  // a small one fits
  EXPECT_TRUE(cache.Find(KeyOf(1), st, &got));
  EXPECT_LE(cache.counters().bytes, 1000u);
  BucketCache off(0);  // query.cache_size 0 stores nothing at all
  off.Put(KeyOf(1), st, MakeEntry(0, 0));
  EXPECT_EQ(off.counters().entries, 0u);
}

// An entry's value texts come back with it and count toward max_bytes.
TEST(BucketCache, ValueTextsAreKeptAndCounted) {
  BucketCache cache(1 << 20);
  const BucketCache::Stamp st = cache.StampOf(1, 0);
  cache.Put(KeyOf(1), st, MakeEntry(0, 8));
  const uint64_t plain = cache.counters().bytes;
  BucketCache::Entry e = MakeEntry(0, 8);
  e.value_text = "0.00.51.01.52.02.53.03.5";
  e.text_len = {3, 3, 3, 3, 3, 3, 3, 3};
  e.value_text.shrink_to_fit();
  e.text_len.shrink_to_fit();
  const size_t extra = e.value_text.capacity() + e.text_len.capacity();
  cache.Put(KeyOf(1), st, std::move(e));
  EXPECT_EQ(cache.counters().bytes, plain + extra);
  BucketCache::EntryPtr got;
  ASSERT_TRUE(cache.Find(KeyOf(1), st, &got));
  EXPECT_EQ(got->value_text, "0.00.51.01.52.02.53.03.5");
  EXPECT_EQ(got->text_len, (std::vector<uint8_t>(8, 3)));
}

TEST(BucketCache, CountsHitsAndMisses) {
  BucketCache cache(1 << 20);
  const BucketCache::Stamp st = cache.StampOf(1, 0);
  BucketCache::EntryPtr got;
  EXPECT_FALSE(cache.Find(KeyOf(1), st, &got));
  cache.Put(KeyOf(1), st, MakeEntry(0, 3));
  cache.Put(KeyOf(2), st, MakeEntry(0, 3));
  EXPECT_TRUE(cache.Find(KeyOf(1), st, &got));
  EXPECT_TRUE(cache.Find(KeyOf(2), st, &got));
  EXPECT_TRUE(cache.Find(KeyOf(1), st, &got));
  EXPECT_FALSE(cache.Find(KeyOf(3), st, &got));
  const BucketCache::Counters c = cache.counters();
  EXPECT_EQ(c.hits, 3u);
  EXPECT_EQ(c.misses, 2u);
  EXPECT_EQ(c.entries, 2u);
  EXPECT_GT(c.bytes, 6 * sizeof(BucketCache::Bucket));
}

// A query holds the buckets it may store back only up to the cache's size
// in all (cached_source.h): a source past it stops collecting, gives its
// share back, and answers the same. Releasing shares between groups is
// what lets the last group of a group-by query still be stored.
TEST(BucketCacheQuery, CollectsWithinTheCacheSizeAndAnswersTheSame) {
  testing::MemStorage st;
  constexpr int kHosts = 50;
  constexpr Timestamp kBase = 100 * 60 * kMinuteMs;  // far below the watermark
  for (int h = 0; h < kHosts; ++h) {
    const SeriesId id = st.Add("m", {{"host", "h" + std::to_string(h)}});
    for (int i = 0; i < 360; ++i) st.Put(id, kBase + i * 10000, Value::Float(h + i * 0.25));
  }
  auto run = [&](const QueryEngine& engine, const std::string& m) {
    QuerySpec spec;
    const ParamList params = {{"start", std::to_string(kBase / 1000)},
                              {"end", std::to_string(kBase / 1000 + 3599)},
                              {"m", m}};
    EXPECT_TRUE(ParseQueryParams(params, kBase + kDayMs, &spec).ok());
    testing::StringSink sink;
    EXPECT_TRUE(engine.Execute(spec, &sink).ok()) << m;
    return sink.body;
  };
  const QueryEngine plain(&st, {});
  // One group of 50 series x 360 buckets (about 290 KB) through a 16 KiB
  // cache: most sources stop collecting midway.
  BucketCache small(16 << 10);
  const QueryEngine cached_small(&st, {}, nullptr, &small);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(run(cached_small, "sum:10s-avg:m"), run(plain, "sum:10s-avg:m"));
  }
  EXPECT_LE(small.counters().bytes, size_t{16 << 10});
  // One group per host through a 128 KiB cache: each group's sources give
  // their share back, so the last host is stored and found again.
  BucketCache mid(128 << 10);
  const QueryEngine cached_mid(&st, {}, nullptr, &mid);
  EXPECT_EQ(run(cached_mid, "sum:10s-avg:m{host=*}"), run(plain, "sum:10s-avg:m{host=*}"));
  const uint64_t hits = mid.counters().hits;
  const std::string last = "sum:10s-avg:m{host=h" + std::to_string(kHosts - 1) + "}";
  EXPECT_EQ(run(cached_mid, last), run(plain, last));
  EXPECT_EQ(mid.counters().hits, hits + 1);
}

}  // namespace
}  // namespace sundial::query
