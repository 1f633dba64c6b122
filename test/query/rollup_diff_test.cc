// Differential test of the rollup planner hook: random data (integers,
// decimals, arbitrary doubles, mixed series, out-of-order, overwritten and
// late points, some of them rebuilt and some still dirty) and random
// whole-hour downsampling queries, answered once with rollups and once from
// raw points only. The two JSON bodies must be byte-identical.
// SUNDIAL_SEED replays a run.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <random>
#include <string>

#include "mem_storage.h"
#include "storage/test_util.h"
#include "sundial/query/query_engine.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/storage.h"

namespace sundial::query {
namespace {

using rollup::kDayMs;
using rollup::kHourMs;

constexpr int64_t kBase = 19000 * kDayMs;  // a UTC midnight

using storage::testing::TempDir;

Value RandomValue(std::mt19937_64& rng, int kind) {
  if (kind == 3) kind = static_cast<int>(rng() % 3);  // mixed series
  switch (kind) {
    case 0: return Value::Int(static_cast<int64_t>(rng() % 2001) - 1000);
    case 1: return Value::Float(static_cast<double>(static_cast<int64_t>(rng() % 200001) - 100000) / 100);
    default: return Value::Float(std::ldexp(static_cast<double>(rng() % (1u << 30)), -static_cast<int>(rng() % 20)) - 500);
  }
}

struct World {
  TempDir dir;
  std::atomic<int64_t> now{kBase + 3 * kDayMs + 20 * 60000};
  std::unique_ptr<rollup::RollupStore> rollups;
  std::unique_ptr<storage::Storage> st;
  std::vector<SeriesId> ids;
  std::vector<int> kinds;

  void Open() {
    rollup::RollupOptions ro;
    ro.dir = dir.path() + "/rollup";
    ro.grace_ms = 10 * 60000;
    ro.clock = [this] { return now.load(); };
    ASSERT_TRUE(rollup::RollupStore::Open(ro, &rollups).ok());
    storage::StorageOptions so;
    so.data_dir = dir.path();
    so.late_observer = rollups.get();
    ASSERT_TRUE(storage::Storage::Open(so, &st).ok());
  }
  void Put(size_t s, Timestamp t, Value v) {
    storage::SeriesPoint p{ids[s], t, v};
    ASSERT_TRUE(st->Append(&p, 1).ok());
  }
};

void Load(World* w, std::mt19937_64& rng) {
  const char* hosts[] = {"h0", "h1", "h2", "h3", "h4", "h5"};
  for (int i = 0; i < 6; ++i) {
    storage::TagRef tags[2] = {{"host", hosts[i]}, {"dc", i % 2 ? "b" : "a"}};
    SeriesId id = 0;
    ASSERT_TRUE(w->st->ResolveSeries("m", tags, 2, &id).ok());
    w->ids.push_back(id);
    w->kinds.push_back(i % 4);
  }
  const Timestamp end = w->now.load();
  for (size_t s = 0; s < w->ids.size(); ++s) {
    Timestamp t = kBase + static_cast<Timestamp>(rng() % kHourMs);
    while (t < end) {
      w->Put(s, t, RandomValue(rng, w->kinds[s]));
      // Mostly regular, with gaps of hours now and then.
      t += rng() % 50 == 0 ? static_cast<Timestamp>(rng() % (5 * kHourMs)) : 1000 + static_cast<Timestamp>(rng() % 600000);
      if (rng() % 40 == 0) {  // out of order within the recent past
        w->Put(s, t - static_cast<Timestamp>(rng() % 3600000), RandomValue(rng, w->kinds[s]));
      }
    }
  }
}

void AddLatePoints(World* w, std::mt19937_64& rng, int n) {
  for (int i = 0; i < n; ++i) {
    const size_t s = rng() % w->ids.size();
    const Timestamp t = kBase + static_cast<Timestamp>(rng() % static_cast<uint64_t>(3 * kDayMs));
    w->Put(s, t, RandomValue(rng, static_cast<int>(rng() % 4)));
  }
}

std::string RandomQuery(std::mt19937_64& rng) {
  const char* intervals[] = {"1h", "2h", "3h", "6h", "1d", "4h", "24h", "1dc", "1hc", "2dc", "1wc", "60m", "2d"};
  const char* fns[] = {"sum", "avg", "min", "max", "count", "first", "last", "zimsum", "mimmax", "mimmin", "pfsum"};
  const char* fills[] = {"", "-none", "-nan", "-null", "-zero"};
  const char* aggs[] = {"sum", "avg", "max", "min", "none", "count", "dev", "zimsum", "first", "last"};
  const char* zones[] = {"UTC", "Etc/GMT-2", "Asia/Kolkata", "America/New_York", "Europe/Berlin"};
  Timestamp start = kBase - kHourMs + static_cast<Timestamp>(rng() % static_cast<uint64_t>(3 * kDayMs));
  if (rng() % 2) start = start - start % kHourMs;
  Timestamp end = start + static_cast<Timestamp>(rng() % static_cast<uint64_t>(2 * kDayMs));
  if (rng() % 2) end = end - end % kHourMs;
  std::string ds = std::string(intervals[rng() % 13]) + "-" + fns[rng() % 11] + fills[rng() % 5];
  std::string q = "{\"start\":" + std::to_string(start) + ",\"end\":" + std::to_string(end);
  if (rng() % 3 == 0) q += ",\"timezone\":\"" + std::string(zones[rng() % 5]) + "\"";
  if (rng() % 4 == 0) q += ",\"useCalendar\":true";
  if (rng() % 3 == 0) q += ",\"msResolution\":true";
  q += ",\"queries\":[{\"aggregator\":\"" + std::string(aggs[rng() % 10]) + "\",\"metric\":\"m\"";
  q += ",\"downsample\":\"" + ds + "\"";
  if (rng() % 4 == 0) q += ",\"rate\":true";
  switch (rng() % 3) {
    case 0: q += ",\"tags\":{\"host\":\"*\"}"; break;
    case 1: q += ",\"tags\":{\"dc\":\"a\"}"; break;
    default: break;
  }
  q += "}]}";
  return q;
}

Status RunQuery(const QueryEngine& engine, const std::string& body, std::string* out) {
  QuerySpec spec;
  SUNDIAL_RETURN_IF_ERROR(ParseQueryJson(body, kBase + 3 * kDayMs, &spec));
  testing::StringSink sink;
  Status s = engine.Execute(spec, &sink);
  *out = sink.body;
  return s;
}

TEST(RollupDiff, RollupPathMatchesRawPath) {
  const uint64_t seed = storage::testing::TestSeed(std::random_device{}());
  std::mt19937_64 rng(seed);
  World w;
  w.Open();
  Load(&w, rng);
  ASSERT_TRUE(w.rollups->BuildNow(w.st.get()).ok());
  AddLatePoints(&w, rng, 40);                         // rebuilt below
  ASSERT_TRUE(w.rollups->BuildNow(w.st.get()).ok());
  AddLatePoints(&w, rng, 20);                         // left dirty
  const QueryEngine raw(w.st.get(), QueryLimits{});
  const QueryEngine with(w.st.get(), QueryLimits{}, w.rollups.get());
  int compared = 0, nonempty = 0;
  const uint64_t read_before = w.rollups->stats().hours_read;
  for (int i = 0; i < 600; ++i) {
    const std::string q = RandomQuery(rng);
    std::string a, b;
    const Status sa = RunQuery(raw, q, &a);
    const Status sb = RunQuery(with, q, &b);
    ASSERT_EQ(sa.ToString(), sb.ToString()) << q;
    ASSERT_EQ(a, b) << "seed " << seed << " query " << i << ": " << q;
    compared += sa.ok() ? 1 : 0;
    nonempty += a.size() > 200 ? 1 : 0;
  }
  std::printf("compared %d, non-empty %d, hours from rollups %llu\n", compared, nonempty,
              static_cast<unsigned long long>(w.rollups->stats().hours_read - read_before));
  EXPECT_GT(compared, 500);
  EXPECT_GT(nonempty, 250);
  EXPECT_GT(w.rollups->stats().hours_read, read_before);  // rollups were used
}

}  // namespace
}  // namespace sundial::query
