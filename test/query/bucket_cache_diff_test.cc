// Differential tests of the bucket cache (sundial/query/bucket_cache.h):
// random fixed-interval downsampling queries answered with and without the
// cache over a real storage that keeps changing between rounds (appends at
// the live edge, late points and overwrites in ranges already cached,
// compaction, new series); appends racing the watermark; a retention drop.
// With and without the cache the JSON bodies must be byte-identical.
// SUNDIAL_SEED replays a run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "mem_storage.h"
#include "sundial/common/env.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"
#include "sundial/query/bucket_cache.h"
#include "sundial/query/query_engine.h"
#include "sundial/storage/storage.h"

namespace sundial::query {
namespace {

using storage::testing::TempDir;

constexpr int64_t kMinuteMs = 60 * 1000;
constexpr int64_t kHourMs = 60 * kMinuteMs;
constexpr int64_t kDayMs = 24 * kHourMs;

Timestamp WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Value RandomValue(std::mt19937_64& rng, int kind) {
  if (kind == 3) kind = static_cast<int>(rng() % 3);  // mixed series
  switch (kind) {
    case 0: return Value::Int(static_cast<int64_t>(rng() % 2001) - 1000);
    case 1: return Value::Float(static_cast<double>(static_cast<int64_t>(rng() % 200001) - 100000) / 100);
    default: {
      if (rng() % 50 == 0) return Value::Float(rng() % 2 ? 1e300 : -3e-310);  // overflow, subnormal
      return Value::Float(std::ldexp(static_cast<double>(rng() % (1u << 30)), -static_cast<int>(rng() % 20)) - 500);
    }
  }
}

struct Series {
  SeriesId id = 0;
  int kind = 0;
  Timestamp last = kMinTimestamp;  // newest timestamp written
  std::vector<Timestamp> ts;       // some written timestamps, for overwrites
};

struct World {
  TempDir dir;
  Timestamp base = 0;  // hour aligned, two days ago
  std::unique_ptr<BucketCache> cache;
  std::unique_ptr<storage::Storage> st;
  std::vector<Series> series;
  int hosts = 0;

  void Open(size_t cache_bytes) {
    base = WallMs() - 2 * kDayMs;
    base -= base % kHourMs;
    cache = std::make_unique<BucketCache>(cache_bytes);
    storage::StorageOptions so = storage::testing::SmallOptions(dir.path());
    so.partition_duration_ms = 6 * kHourMs;
    so.late_observer = cache.get();
    ASSERT_TRUE(storage::Storage::Open(so, &st).ok());
  }
  void Put(size_t s, Timestamp t, Value v) {
    storage::SeriesPoint p{series[s].id, t, v};
    ASSERT_TRUE(st->Append(&p, 1).ok());
    Series& x = series[s];
    x.last = std::max(x.last, t);
    if (x.ts.size() < 4096) x.ts.push_back(t);
  }
  void AddSeries(std::mt19937_64& rng) {
    const std::string host = "h" + std::to_string(hosts);
    storage::TagRef tags[2] = {{"host", host}, {"dc", hosts % 2 ? "b" : "a"}};
    Series s;
    ASSERT_TRUE(st->ResolveSeries("m", tags, 2, &s.id).ok());
    s.kind = hosts % 4;
    ++hosts;
    series.push_back(s);
    // Points from the base to the wall clock, some in its last minute.
    const size_t i = series.size() - 1;
    const Timestamp end = WallMs();
    Timestamp t = base + static_cast<Timestamp>(rng() % kHourMs);
    while (t < end) {
      Put(i, t, RandomValue(rng, s.kind));
      if (rng() % 60 == 0) {
        t += static_cast<Timestamp>(rng() % (3 * kHourMs));  // a gap
      } else if (t > end - 10 * kMinuteMs) {
        t += 500 + static_cast<Timestamp>(rng() % 5000);  // dense near the live edge
      } else {
        t += 1000 + static_cast<Timestamp>(rng() % 150000);
      }
    }
  }
};

// One change of the data between rounds.
void Mutate(World* w, std::mt19937_64& rng) {
  const size_t s = rng() % w->series.size();
  Series& x = w->series[s];
  const Timestamp now = WallMs();
  switch (rng() % 7) {
    case 0: {  // in-order appends at the end (below or above the watermark)
      Timestamp t = std::max(x.last + 1, now - static_cast<Timestamp>(rng() % (3 * kMinuteMs)));
      for (int k = 0, n = 1 + static_cast<int>(rng() % 20); k < n && t < now; ++k) {
        w->Put(s, t, RandomValue(rng, x.kind));
        t += 1 + static_cast<Timestamp>(rng() % 3000);
      }
      break;
    }
    case 1: {  // late points far in the past
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
        const Timestamp t = w->base + static_cast<Timestamp>(rng() % static_cast<uint64_t>(now - w->base - 2 * kMinuteMs));
        w->Put(s, t, RandomValue(rng, static_cast<int>(rng() % 4)));
      }
      break;
    }
    case 2: {  // overwrites of existing timestamps (last write wins)
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
        const Timestamp t = x.ts[rng() % x.ts.size()];
        w->Put(s, t, RandomValue(rng, static_cast<int>(rng() % 4)));
      }
      break;
    }
    case 3: {  // a burst of late points into one hour
      const Timestamp h = w->base + static_cast<Timestamp>(rng() % 40) * kHourMs;
      for (int k = 0; k < 10; ++k) {
        w->Put(s, h + static_cast<Timestamp>(rng() % kHourMs), RandomValue(rng, x.kind));
      }
      break;
    }
    case 4: {  // old partitions compacted into cold files (same points)
      auto* impl = static_cast<storage::StorageImpl*>(w->st.get());
      ASSERT_TRUE(impl->TEST_FlushAll().ok());
      const Status cs = impl->TEST_Compact(now - kDayMs);
      ASSERT_TRUE(cs.ok() || cs.code() == Status::Code::kBusy) << cs.ToString();
      break;
    }
    case 5:
      if (w->series.size() < 12) {
        w->AddSeries(rng);  // a new series matching existing filters
        break;
      }
      [[fallthrough]];
    default:  // a point at the live edge, above the watermark
      w->Put(s, now - static_cast<Timestamp>(rng() % 50000), RandomValue(rng, x.kind));
  }
}

// A query's time range; successive ranges slide forward or repeat.
struct Window {
  Timestamp start = 0;
  Timestamp end = 0;  // 0: none given (now)
};

Window NextWindow(const World& w, const Window& prev, std::mt19937_64& rng) {
  const Timestamp now = WallMs();
  Window n = prev;
  switch (rng() % 6) {
    case 0:
    case 1:  // slide forward a bit
      n.start += static_cast<Timestamp>(rng() % (20 * kMinuteMs));
      if (n.end != 0) n.end += static_cast<Timestamp>(rng() % (20 * kMinuteMs));
      break;
    case 2:  // the same window again
      break;
    case 3:  // slide back a little
      n.start -= static_cast<Timestamp>(rng() % (90 * kMinuteMs));
      break;
    default: {  // somewhere new, possibly up to now
      n.start = w.base - kHourMs + static_cast<Timestamp>(rng() % static_cast<uint64_t>(now - w.base));
      if (rng() % 3 == 0) n.start -= n.start % kHourMs;
      const uint64_t span = (rng() % 4 == 0 ? 24 : 6) * kHourMs;
      n.end = rng() % 4 == 0 ? 0 : n.start + 1 + static_cast<Timestamp>(rng() % span);
      if (n.end != 0 && rng() % 3 == 0) n.end -= n.end % kMinuteMs;
      if (n.end > now + kHourMs) n.end = 0;
    }
  }
  if (n.end != 0 && n.end <= n.start) n.end = n.start + 1;
  return n;
}

std::string SubQueryJson(std::mt19937_64& rng) {
  const char* intervals[] = {"1m", "7m", "45s", "5m", "13s", "90m", "1500ms", "10m", "2h", "1d", "17m", "1m"};
  const char* fns[] = {"avg", "sum", "min", "max", "count", "first", "last", "dev", "p50", "p99",
                       "ep90r7", "median", "zimsum", "squareSum", "mult", "diff", "ep999r3", "avg"};
  const char* fills[] = {"", "-none", "-nan", "-null", "-zero"};
  const char* aggs[] = {"sum", "avg", "max", "min", "none", "count", "dev", "zimsum", "mimmax", "p95"};
  std::string ds = std::string(intervals[rng() % 12]) + "-" + fns[rng() % 18] + fills[rng() % 5];
  if (rng() % 25 == 0) ds = "1hc-sum";       // calendar: not cached
  if (rng() % 25 == 0) ds = "0all-avg";      // all: not cached
  std::string q = "{\"aggregator\":\"" + std::string(aggs[rng() % 10]) + "\",\"metric\":\"m\"";
  if (rng() % 10 != 0) q += ",\"downsample\":\"" + ds + "\"";
  if (rng() % 4 == 0) {
    q += ",\"rate\":true";
    if (rng() % 2) q += ",\"rateOptions\":{\"counter\":true,\"dropResets\":" + std::string(rng() % 2 ? "true" : "false") + "}";
  }
  switch (rng() % 5) {
    case 0: q += ",\"tags\":{\"host\":\"*\"}"; break;
    case 1: q += ",\"tags\":{\"dc\":\"a\"}"; break;
    case 2: q += ",\"filters\":[{\"type\":\"wildcard\",\"tagk\":\"host\",\"filter\":\"h1*\",\"groupBy\":false}]"; break;
    case 3: q += ",\"filters\":[{\"type\":\"literal_or\",\"tagk\":\"dc\",\"filter\":\"a|b\",\"groupBy\":true}]"; break;
    default: break;
  }
  return q + "}";
}

std::string QueryJson(const Window& win, std::mt19937_64& rng) {
  std::string q = "{\"start\":" + std::to_string(win.start);
  if (win.end != 0) q += ",\"end\":" + std::to_string(win.end);
  if (rng() % 3 == 0) q += ",\"msResolution\":true";
  if (rng() % 8 == 0) q += ",\"useCalendar\":true";
  q += ",\"queries\":[" + SubQueryJson(rng);
  if (rng() % 5 == 0) q += "," + SubQueryJson(rng);
  return q + "]}";
}

struct Outcome {
  Status status;
  std::string body;
};

Outcome Answer(const QueryEngine& engine, const QuerySpec& spec) {
  testing::StringSink sink;
  Outcome o;
  o.status = engine.Execute(spec, &sink);
  o.body = std::move(sink.body);
  return o;
}

// The same on the small-query path, cut short (Busy) past max_points.
Outcome AnswerSmall(const QueryEngine& engine, const QuerySpec& spec, uint64_t max_points) {
  Outcome o;
  o.status = engine.ExecuteSmall(spec, SmallQueryBound{1000, max_points}, &o.body);
  return o;
}

// Runs rounds of random queries (each on both engines) and mutations.
void RunDifferential(size_t cache_bytes, int rounds, int queries_per_round) {
  const uint64_t seed = storage::testing::TestSeed(std::random_device{}());
  std::mt19937_64 rng(seed);
  World w;
  w.Open(cache_bytes);
  for (int i = 0; i < 7; ++i) w.AddSeries(rng);
  const QueryEngine plain(w.st.get(), QueryLimits{});
  const QueryEngine cached(w.st.get(), QueryLimits{}, nullptr, w.cache.get());
  QueryLimits few;
  few.max_points = 2000;
  const QueryEngine limited(w.st.get(), few, nullptr, w.cache.get());
  Window win;
  win.start = w.base + 5 * kHourMs + 1234;
  win.end = win.start + 7 * kHourMs;
  int compared = 0, nonempty = 0, mutations = 0, cut = 0;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < queries_per_round; ++i) {
      win = NextWindow(w, win, rng);
      const std::string body = QueryJson(win, rng);
      QuerySpec spec;
      if (!ParseQueryJson(body, WallMs(), &spec).ok()) continue;
      // Twice with the cache: the second answer may come mostly from it.
      const Outcome want = Answer(plain, spec);
      if (rng() % 3 == 0) {  // cut short by a budget: must leave no partial entry
        const Outcome part =
            rng() % 2 ? AnswerSmall(cached, spec, 1 + rng() % 3000) : Answer(limited, spec);
        if (part.status.ok()) {
          ASSERT_EQ(want.body, part.body) << "SUNDIAL_SEED=" << seed << ": " << body;
        } else {
          ++cut;
        }
      }
      for (int k = 0; k < 2; ++k) {
        const Outcome got = Answer(cached, spec);
        ASSERT_EQ(want.status.ToString(), got.status.ToString())
            << "SUNDIAL_SEED=" << seed << " round " << r << " query " << i << ": " << body;
        ASSERT_EQ(want.body, got.body)
            << "SUNDIAL_SEED=" << seed << " round " << r << " query " << i << " run " << k
            << ": " << body;
        if (rng() % 2) break;
      }
      compared += want.status.ok() ? 1 : 0;
      nonempty += want.body.size() > 100 ? 1 : 0;
    }
    for (int m = 0, n = 1 + static_cast<int>(rng() % 6); m < n; ++m, ++mutations) {
      Mutate(&w, rng);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  const BucketCache::Counters c = w.cache->counters();
  std::printf("cache %zu bytes: compared %d, non-empty %d, cut short %d, mutations %d, hits %llu, "
              "misses %llu, entries %llu\n",
              cache_bytes, compared, nonempty, cut, mutations, static_cast<unsigned long long>(c.hits),
              static_cast<unsigned long long>(c.misses), static_cast<unsigned long long>(c.entries));
  EXPECT_GT(compared, rounds * queries_per_round * 3 / 4);
  EXPECT_GT(nonempty, rounds * queries_per_round / 2);
  EXPECT_GT(c.hits, static_cast<uint64_t>(compared / 4));  // the cache answered
  EXPECT_GT(c.misses, 0u);
  EXPECT_GT(cut, 0);
  EXPECT_LE(c.bytes, cache_bytes);
}

TEST(BucketCacheDiff, CachedAnswersEqualUncached) { RunDifferential(32 << 20, 40, 25); }

// A cache too small for most entries: eviction and refused Puts on the way.
TEST(BucketCacheDiff, TinyCacheAnswersEqualUncached) { RunDifferential(4096, 12, 25); }

// Forwards to a cache, but takes its time, as a busy machine may: between
// reading the watermark and returning it (a storage that read it before
// making a point readable would then often miss a query raising it in
// between), and after telling the cache of late points (a storage that
// told it before making them readable would then often let a query read
// the new stamp with the old points).
class SlowObserver final : public storage::LateAppendObserver {
 public:
  explicit SlowObserver(BucketCache* cache) : cache_(cache) {}
  Timestamp late_watermark() const override {
    const Timestamp m = cache_->late_watermark();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    return m;
  }
  void OnLateAppend(const storage::SeriesPoint* points, size_t n) override {
    cache_->OnLateAppend(points, n);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  Status SyncLate() override { return cache_->SyncLate(); }

 private:
  BucketCache* const cache_;
};

// Which points the racing writer appends.
enum class Racing {
  kAboveWatermark,  // a few ms above it: late only if a query raises it past
  kFarBelow,        // late points anywhere in the queried range
};

struct RaceCounts {
  std::atomic<int> bad{0};
  std::atomic<int> appended{0};
};

// Appends points as `how` says until stop.
void AppendRacing(storage::Storage* st, const BucketCache& cache, const std::vector<SeriesId>& ids,
                  Racing how, Timestamp start, uint64_t seed, const std::atomic<bool>& stop,
                  RaceCounts* counts) {
  std::mt19937_64 rng(seed);
  while (!stop.load()) {
    const Timestamp mark = cache.late_watermark();
    const Timestamp base = mark == kMinTimestamp ? WallMs() - BucketCache::kLagMs : mark;
    const Timestamp t = how == Racing::kAboveWatermark
                            ? base + 1 + static_cast<Timestamp>(rng() % 5)
                            : start + static_cast<Timestamp>(rng() % static_cast<uint64_t>(base - start));
    storage::SeriesPoint p{ids[rng() % ids.size()], t, Value::Int(static_cast<int64_t>(rng() % 100))};
    if (!st->Append(&p, 1).ok()) counts->bad.fetch_add(1);
    counts->appended.fetch_add(1);
  }
}

// One writer appending as `how` says while two threads run cached queries
// that raise the watermark and store buckets: once they stop, what the
// cache kept must still be exact.
void RaceWriterAndQueries(Racing how) {
  const uint64_t seed = storage::testing::TestSeed(std::random_device{}());
  TempDir dir;
  BucketCache cache(8 << 20);
  SlowObserver slow(&cache);
  storage::StorageOptions so = storage::testing::SmallOptions(dir.path());
  so.late_observer = &slow;
  std::unique_ptr<storage::Storage> st;
  ASSERT_TRUE(storage::Storage::Open(so, &st).ok());
  std::vector<SeriesId> ids(16);
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string host = "h" + std::to_string(i);
    storage::TagRef tag{"host", host};
    ASSERT_TRUE(st->ResolveSeries("m", &tag, 1, &ids[i]).ok());
  }
  const QueryEngine plain(st.get(), QueryLimits{});
  const QueryEngine cached(st.get(), QueryLimits{}, nullptr, &cache);
  const Timestamp start = WallMs() - 3 * kMinuteMs;
  auto body = [start](const char* ds) {
    return "{\"start\":" + std::to_string(start) + ",\"queries\":[{\"aggregator\":\"sum\","
           "\"metric\":\"m\",\"downsample\":\"" + ds + "\",\"tags\":{\"host\":\"*\"}}]}";
  };
  const std::string queries[] = {body("1ms-count"), body("7ms-sum"), body("1s-last")};
  std::atomic<bool> stop{false};
  RaceCounts counts;
  std::thread writer([&] { AppendRacing(st.get(), cache, ids, how, start, seed, stop, &counts); });
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&, r] {
      for (int i = 0; !stop.load(); ++i) {
        QuerySpec spec;
        if (!ParseQueryJson(queries[(i + r) % 3], WallMs(), &spec).ok() ||
            !Answer(cached, spec).status.ok()) {
          counts.bad.fetch_add(1);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  stop.store(true);
  writer.join();
  for (std::thread& t : readers) t.join();
  std::printf("appended %d, hits %llu, misses %llu\n", counts.appended.load(),
              static_cast<unsigned long long>(cache.counters().hits),
              static_cast<unsigned long long>(cache.counters().misses));
  EXPECT_EQ(counts.bad.load(), 0);
  EXPECT_GT(cache.counters().hits, 0u);
  for (const std::string& q : queries) {
    QuerySpec spec;
    ASSERT_TRUE(ParseQueryJson(q, WallMs(), &spec).ok());
    const std::string want = Answer(plain, spec).body;
    EXPECT_EQ(Answer(cached, spec).body, want) << "SUNDIAL_SEED=" << seed << " " << q;
    EXPECT_EQ(Answer(cached, spec).body, want) << "SUNDIAL_SEED=" << seed << " " << q;
  }
}

// Fails if the storage read the watermark before making a point readable.
TEST(BucketCacheDiff, AppendsRacingTheWatermarkLeaveNoStaleEntry) {
  RaceWriterAndQueries(Racing::kAboveWatermark);
}

// Fails if the storage told the cache of late points before making them
// readable.
TEST(BucketCacheDiff, LatePointsRacingQueriesLeaveNoStaleEntry) {
  RaceWriterAndQueries(Racing::kFarBelow);
}

// ---- retention ----

TEST(BucketCacheDiff, RetentionDropIsNotServedFromTheCache) {
  TempDir dir;
  BucketCache cache(8 << 20);
  storage::StorageOptions so = storage::testing::SmallOptions(dir.path());
  so.partition_duration_ms = kHourMs;
  so.retention_ms = kDayMs;
  so.late_observer = &cache;
  std::unique_ptr<storage::StorageImpl> st;
  // No maintenance thread: the drop happens when the test says.
  ASSERT_TRUE(storage::StorageImpl::Open(so, NewPosixEnv(), &st, false).ok());
  storage::TagRef tag{"host", "a"};
  SeriesId id = 0;
  ASSERT_TRUE(st->ResolveSeries("m", &tag, 1, &id).ok());
  Timestamp base = WallMs() - 30 * kHourMs;
  base -= base % kHourMs;
  std::vector<storage::SeriesPoint> pts;
  for (Timestamp t = base; t < base + 20 * kHourMs; t += 30000) {
    pts.push_back({id, t, Value::Int((t / 30000) % 97)});
  }
  ASSERT_TRUE(st->Append(pts.data(), pts.size()).ok());
  ASSERT_TRUE(st->TEST_FlushAll().ok());

  const QueryEngine plain(st.get(), QueryLimits{});
  const QueryEngine cached(st.get(), QueryLimits{}, nullptr, &cache);
  const std::string body = "{\"start\":" + std::to_string(base) + ",\"end\":" +
                           std::to_string(base + 12 * kHourMs) +
                           ",\"queries\":[{\"aggregator\":\"sum\",\"metric\":\"m\","
                           "\"downsample\":\"7m-count\"}]}";
  QuerySpec spec;
  ASSERT_TRUE(ParseQueryJson(body, WallMs(), &spec).ok());
  const std::string before = Answer(plain, spec).body;
  ASSERT_EQ(Answer(cached, spec).body, before);
  ASSERT_EQ(Answer(cached, spec).body, before);
  const uint64_t hits = cache.counters().hits;
  EXPECT_GT(hits, 0u);

  ASSERT_GE(st->TEST_ApplyRetention(), 3u);  // the first hours are past one day
  const std::string after = Answer(plain, spec).body;
  EXPECT_NE(after, before);
  EXPECT_LT(after.size(), before.size());
  EXPECT_EQ(Answer(cached, spec).body, after);
  EXPECT_EQ(cache.counters().hits, hits);  // the old entry was not used
  EXPECT_EQ(Answer(cached, spec).body, after);
  EXPECT_GT(cache.counters().hits, hits);  // the new one is
}

}  // namespace
}  // namespace sundial::query
