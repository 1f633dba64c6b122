// Differential test: random data and random queries (aggregator x
// downsample x fill x rate x filters x group-by) run through QueryEngine and
// through a plain reference implementation of opentsdb-compat.md §5.5-§5.9
// written over materialised vectors. SUNDIAL_SEED replays a run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <set>

#include "common/thread_executor.h"
#include "mem_storage.h"
#include "sundial/query/bucket_cache.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {
namespace {

using testing::MemStorage;
using testing::StringSink;

constexpr int64_t kBase = 1700000000000 - 1700000000000 % 3600000;  // hour aligned, ms

struct RefPoint {
  Timestamp t;
  Value v;
};
struct RefSeries {
  std::map<std::string, std::string> tags;
  std::vector<RefPoint> pts;
  std::string tsuid;
};
struct RefGroup {
  std::map<std::string, std::string> tags;
  std::set<std::string> agg_tags;
  std::vector<RefPoint> dps;
};

// ---- reference implementation ----

std::vector<RefPoint> RefDownsample(const std::vector<RefPoint>& in, const DownsampleSpec& ds,
                                    const QuerySpec& spec, Timestamp ss, Timestamp se) {
  std::vector<RefPoint> out;
  if (ds.all) {
    std::vector<double> v;
    for (const RefPoint& p : in) {
      if (p.t >= spec.start_ms && p.t < spec.end_ms) v.push_back(p.v.AsDouble());
    }
    if (!v.empty()) out.push_back({spec.start_ms, Value::Float(RunDouble(*ds.fn, v.data(), v.size()))});
    return out;
  }
  auto bucket = [&](Timestamp t) {
    return ds.calendar ? PreviousInterval(t, ds.count, ds.unit, spec.tz) : t - t % ds.interval_ms;
  };
  auto step = [&](Timestamp b) {
    return ds.calendar ? AddCalendar(b, ds.unit, ds.count, spec.tz) : b + ds.interval_ms;
  };
  std::map<Timestamp, std::vector<double>> buckets;
  for (const RefPoint& p : in) buckets[bucket(p.t)].push_back(p.v.AsDouble());
  std::map<Timestamp, double> values;
  for (auto& b : buckets) values[b.first] = RunDouble(*ds.fn, b.second.data(), b.second.size());
  if (ds.fill == FillPolicy::kNone) {
    for (auto& kv : values) out.push_back({kv.first, Value::Float(kv.second)});
    return out;
  }
  Timestamp b = bucket(ss);
  Timestamp end = bucket(se);
  if (ds.calendar && end == b) end = step(end);
  for (; b < end; b = step(b)) {
    auto it = values.find(b);
    const double fill = ds.fill == FillPolicy::kZero ? 0.0 : std::nan("");
    out.push_back({b, Value::Float(it != values.end() ? it->second : fill)});
  }
  return out;
}

// Returns rates; the first element is the hidden rate against (0, 0).
std::vector<RefPoint> RefRate(const std::vector<RefPoint>& in, const RateOptions& o) {
  std::vector<RefPoint> out;
  RefPoint prev{0, Value::Int(0)};
  for (const RefPoint& cur : in) {
    const double dt = static_cast<double>(cur.t - prev.t) / 1000.0;
    const bool ints = prev.v.is_int() && cur.v.is_int();
    double diff = ints ? static_cast<double>(static_cast<int64_t>(
                             static_cast<uint64_t>(cur.v.int_value()) - static_cast<uint64_t>(prev.v.int_value())))
                       : cur.v.AsDouble() - prev.v.AsDouble();
    double rate = diff / dt;
    if (o.counter && diff < 0) {
      if (o.drop_resets) {
        prev = cur;
        continue;
      }
      diff = ints ? static_cast<double>(static_cast<int64_t>(static_cast<uint64_t>(o.counter_max) -
                                                             static_cast<uint64_t>(prev.v.int_value()) +
                                                             static_cast<uint64_t>(cur.v.int_value())))
                  : static_cast<double>(o.counter_max) - prev.v.AsDouble() + cur.v.AsDouble();
      rate = diff / dt;
      if (o.reset_value > 0 && rate > static_cast<double>(o.reset_value)) rate = 0;
    }
    out.push_back({cur.t, Value::Float(rate)});
    prev = cur;
  }
  return out;
}

Value RefAggregate(const std::vector<std::vector<RefPoint>>& series, const Aggregator& agg,
                   bool rate, Timestamp x) {
  bool integer = !rate;
  std::vector<double> d;
  std::vector<int64_t> l;
  for (const auto& s : series) {
    // s[0] is hidden for rates; participation window and neighbours.
    const size_t first_visible = rate ? 1 : 0;
    if (s.size() <= first_visible) continue;
    const Timestamp last = s.back().t;
    size_t nx = 0;
    while (nx < s.size() && s[nx].t <= x) ++nx;  // first point after x
    const bool started = rate || s[first_visible].t <= x;
    const bool participates = started && x <= last;
    if (participates) {
      const RefPoint& cur = nx == 0 ? s[0] : s[nx - 1];
      if (!cur.v.is_int()) integer = false;
    }
    if (nx < s.size() && (rate ? nx >= 1 : true) && !s[nx].v.is_int()) integer = false;
  }
  for (int pass = 0; pass < 1; ++pass) {
    for (const auto& s : series) {
      const size_t first_visible = rate ? 1 : 0;
      if (s.size() <= first_visible) continue;
      size_t nx = 0;
      while (nx < s.size() && s[nx].t <= x) ++nx;
      const bool started = rate || s[first_visible].t <= x;
      if (!started || x > s.back().t) continue;
      const RefPoint& y0 = nx == 0 ? s[0] : s[nx - 1];
      const bool exact = y0.t == x || rate || nx == s.size();
      if (integer) {
        int64_t r = y0.v.int_value();
        if (!exact) {
          const RefPoint& y1 = s[nx];
          switch (agg.interp) {
            case Interpolation::kLerp:
              r = y0.v.int_value() + (x - y0.t) * (y1.v.int_value() - y0.v.int_value()) / (y1.t - y0.t);
              break;
            case Interpolation::kZim: r = 0; break;
            case Interpolation::kMax: r = INT64_MAX; break;
            case Interpolation::kMin: r = INT64_MIN; break;
            case Interpolation::kPrev: break;
          }
        }
        l.push_back(r);
      } else {
        double r = y0.v.AsDouble();
        if (!exact) {
          const RefPoint& y1 = s[nx];
          switch (agg.interp) {
            case Interpolation::kLerp:
              r = r + static_cast<double>(x - y0.t) * (y1.v.AsDouble() - r) / static_cast<double>(y1.t - y0.t);
              break;
            case Interpolation::kZim: r = 0; break;
            case Interpolation::kMax: r = std::numeric_limits<double>::max(); break;
            case Interpolation::kMin: r = -std::numeric_limits<double>::max(); break;
            case Interpolation::kPrev: break;
          }
        }
        d.push_back(r);
      }
    }
  }
  if (integer) return Value::Int(RunLong(agg, l.data(), l.size()));
  return Value::Float(RunDouble(agg, d.data(), d.size()));
}

std::vector<RefGroup> Reference(const std::vector<RefSeries>& all, const QuerySpec& spec) {
  const SubQuery& q = spec.queries[0];
  const int64_t iv = q.downsample.enabled && !q.downsample.all ? q.downsample.interval_ms : 0;
  const int64_t s = spec.start_ms / 1000, e = spec.end_ms / 1000 + 1;
  const int64_t s1 = iv ? s - ((1000 * s) % iv) / 1000 : s;
  const Timestamp ss = std::max<int64_t>(0, s1 - s1 % 3600) * 1000;
  int64_t e1 = iv ? e + (iv - (1000 * e) % iv) / 1000 : e;
  const Timestamp se = (iv && e1 % 3600 == 0 ? e1 : e1 + 3600 - e1 % 3600) * 1000;
  std::set<std::string> gb;
  std::set<std::string> fkeys;
  for (const TagFilter& f : q.filters) {
    fkeys.insert(f.tagk());
    if (f.group_by()) gb.insert(f.tagk());
  }
  std::map<std::string, std::vector<const RefSeries*>> groups;  // key -> members (tsuid order)
  std::vector<const RefSeries*> sorted;
  for (const RefSeries& r : all) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->tsuid < b->tsuid; });
  for (const RefSeries* r : sorted) {
    bool ok = true;
    for (const TagFilter& f : q.filters) {
      auto it = r->tags.find(f.tagk());
      ok = ok && it != r->tags.end() && f.Match(it->second);
    }
    if (q.explicit_tags && r->tags.size() != fkeys.size()) ok = false;
    bool has_data = false;
    for (const RefPoint& p : r->pts) has_data = has_data || (p.t >= ss && p.t < se);
    if (!ok || !has_data) continue;
    std::string key;
    if (q.aggregator->fn == AggFn::kNone) {
      key = r->tsuid;
    } else {
      for (const std::string& k : gb) key += r->tags.at(k) + '\x01';
    }
    groups[key].push_back(r);
  }
  std::vector<RefGroup> out;
  for (auto& g : groups) {
    RefGroup rg;
    std::vector<std::vector<RefPoint>> series;
    std::set<Timestamp> xs;
    for (const RefSeries* r : g.second) {
      for (const auto& kv : r->tags) {
        auto it = rg.tags.find(kv.first);
        if (rg.agg_tags.count(kv.first)) continue;
        if (it == rg.tags.end()) rg.tags[kv.first] = kv.second;
        else if (it->second != kv.second) { rg.tags.erase(it); rg.agg_tags.insert(kv.first); }
      }
      std::vector<RefPoint> pts;
      for (const RefPoint& p : r->pts) if (p.t >= ss && p.t < se) pts.push_back(p);
      if (q.downsample.enabled) pts = RefDownsample(pts, q.downsample, spec, ss, se);
      if (q.rate) pts = RefRate(pts, q.rate_options);
      for (size_t i = q.rate ? 1 : 0; i < pts.size(); ++i) xs.insert(pts[i].t);
      series.push_back(std::move(pts));
    }
    for (Timestamp x : xs) {
      const Value v = RefAggregate(series, *q.aggregator, q.rate, x);
      if (x >= spec.start_ms && x <= spec.end_ms) rg.dps.push_back({x, v});
    }
    out.push_back(std::move(rg));
  }
  return out;
}

// ---- random inputs ----

std::string RandomQuery(std::mt19937_64& rng) {
  auto pick = [&](std::vector<std::string> v) { return v[rng() % v.size()]; };
  size_t n = 0;
  const Aggregator* aggs = AllAggregators(&n);
  std::string m = std::string(aggs[rng() % n].name) + ":";
  if (rng() % 3 != 0) {
    std::string fn;
    do fn = std::string(aggs[rng() % n].name); while (fn == "none");
    const std::string iv = pick({"10s", "30s", "1m", "5m", "1h", "0all", "1mc", "1hc", "15mc"});
    m += iv + "-" + fn;
    if (iv != "0all" && rng() % 2) m += "-" + pick({"none", "nan", "null", "zero"});
    m += ":";
  }
  if (rng() % 3 == 0) {
    m += pick({"rate", "rate{counter}", "rate{counter,1000}", "rate{counter,1000,5}",
               "rate{dropcounter}", "rate{counter,,3}"}) + ":";
  }
  if (rng() % 6 == 0) m += "explicit_tags:";
  m += "m" + pick({"", "{host=*}", "{dc=*}", "{host=a|b}", "{dc=x}", "{}{host=wildcard(*a*)}",
                   "{dc=*}{host=not_literal_or(c)}", "{host=*,dc=*}", "{}{host=regexp(^[ab])}",
                   "{dc=iliteral_or(X)}"});
  return m;
}

std::vector<RefSeries> RandomData(std::mt19937_64& rng, MemStorage* st) {
  const char* hosts[] = {"a", "b", "c", "d"};
  std::vector<RefSeries> out;
  const int n = 1 + static_cast<int>(rng() % 6);
  std::set<std::string> used;
  for (int i = 0; i < n; ++i) {
    RefSeries r;
    r.tags["host"] = hosts[rng() % 4];
    r.tags["dc"] = rng() % 2 ? "x" : "y";
    if (rng() % 4 == 0) r.tags["rack"] = "r" + std::to_string(rng() % 2);
    std::string canon;
    for (auto& kv : r.tags) canon += kv.first + kv.second;
    if (!used.insert(canon).second) continue;
    std::vector<std::pair<std::string, std::string>> tags(r.tags.begin(), r.tags.end());
    const SeriesId id = st->Add("m", tags);
    const int kind = static_cast<int>(rng() % 3);  // 0 ints, 1 floats, 2 mixed
    Timestamp t = kBase + static_cast<int64_t>(rng() % 7200) * 1000;
    const int count = static_cast<int>(rng() % 40);
    for (int k = 0; k < count; ++k) {
      t += (1 + static_cast<int64_t>(rng() % 300)) * 1000 + (rng() % 10 == 0 ? 250 : 0);
      const bool is_int = kind == 0 || (kind == 2 && rng() % 2);
      const Value v = is_int ? Value::Int(static_cast<int64_t>(rng() % 200) - 50)
                             : Value::Float(static_cast<double>(static_cast<int64_t>(rng() % 20000) - 5000) / 100.0);
      st->Put(id, t, v);
      r.pts.push_back({t, v});
    }
    storage::SeriesKey key;
    EXPECT_TRUE(st->GetSeriesKey(id, &key).ok());
    r.tsuid = TsuidOf(key);
    out.push_back(std::move(r));
  }
  return out;
}

bool SameValue(const nlohmann::json& j, const Value& v, bool null_fill) {
  if (v.is_int()) return j.is_number_integer() && j.get<int64_t>() == v.int_value();
  const double d = v.float_value();
  if (std::isnan(d)) return null_fill ? j.is_null() : (j.is_string() && j.get<std::string>() == "NaN");
  return j.is_number_float() && j.get<double>() == d;
}

TEST(QueryDiff, EngineMatchesReference) {
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("SUNDIAL_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("QueryDiff seed: %llu (replay with SUNDIAL_SEED)\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  int compared = 0;
  for (int round = 0; round < 400; ++round) {
    MemStorage st;
    const std::vector<RefSeries> data = RandomData(rng, &st);
    QueryEngine engine(&st, {});
    for (int qi = 0; qi < 20; ++qi) {
      const std::string m = RandomQuery(rng);
      const int64_t start = kBase + static_cast<int64_t>(rng() % 9000) * 1000 + (rng() % 4 == 0 ? 0 : 500);
      const int64_t end = start + static_cast<int64_t>(rng() % 10000) * 1000;
      QuerySpec spec;
      ASSERT_TRUE(ParseQueryParams({{"start", std::to_string(start)}, {"end", std::to_string(end)},
                                    {"m", m}, {"ms", ""}}, 0, &spec).ok()) << m;
      StringSink sink;
      const Status s = engine.Execute(spec, &sink);
      if (!s.ok()) {
        EXPECT_NE(s.message().find("No such name"), std::string::npos) << m << " " << s.ToString();
        continue;
      }
      const std::vector<RefGroup> ref = Reference(data, spec);
      const nlohmann::json got = nlohmann::json::parse(sink.body, nullptr, false);
      ASSERT_FALSE(got.is_discarded()) << sink.body;
      const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round) +
                              " m=" + m + " start=" + std::to_string(start) + " end=" + std::to_string(end);
      EXPECT_EQ(got.size(), ref.size()) << ctx;
      const bool null_fill = spec.queries[0].downsample.fill == FillPolicy::kNull;
      for (size_t g = 0; g < ref.size() && got.size() == ref.size(); ++g) {
        const auto& dps = got[g]["dps"];
        EXPECT_EQ(dps.size(), ref[g].dps.size()) << ctx << " group " << g;
        if (dps.size() != ref[g].dps.size()) break;
        size_t i = 0;
        for (auto it = dps.begin(); it != dps.end(); ++it, ++i) {
          EXPECT_EQ(it.key(), std::to_string(ref[g].dps[i].t)) << ctx;
          EXPECT_TRUE(SameValue(*it, ref[g].dps[i].v, null_fill))
              << ctx << " at " << it.key() << ": got " << it->dump() << " want "
              << (ref[g].dps[i].v.is_int() ? std::to_string(ref[g].dps[i].v.int_value())
                                           : std::to_string(ref[g].dps[i].v.float_value()));
        }
        std::set<std::string> agg;
        for (const auto& a : got[g]["aggregateTags"]) agg.insert(a.get<std::string>());
        EXPECT_EQ(agg, ref[g].agg_tags) << ctx;
        EXPECT_EQ(got[g]["tags"].size(), ref[g].tags.size()) << ctx;
        ++compared;
      }
      if (::testing::Test::HasFailure()) {
        std::printf("body: %s\n", sink.body.c_str());
        for (const RefSeries& r : data) {
          std::printf("series %s:", r.tsuid.c_str());
          for (auto& kv : r.tags) std::printf(" %s=%s", kv.first.c_str(), kv.second.c_str());
          for (auto& p : r.pts) std::printf(" %lld:%s", static_cast<long long>(p.t),
                                            p.v.is_int() ? std::to_string(p.v.int_value()).c_str()
                                                         : std::to_string(p.v.float_value()).c_str());
          std::printf("\n");
        }
        return;
      }
    }
  }
  EXPECT_GT(compared, 2000);
}

// Groups run at once on lanes (QueryLanes) must give the body and the
// errors that running them one after another gives, limits included.
TEST(QueryDiff, ParallelGroupsMatchSequentialGroups) {
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("SUNDIAL_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("QueryDiff parallel seed: %llu (replay with SUNDIAL_SEED)\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  sundial::testing::ThreadExecutor ex(3);
  int compared = 0, limited = 0, limited_cached = 0;
  for (int round = 0; round < 200; ++round) {
    MemStorage st;
    RandomData(rng, &st);
    RandomData(rng, &st);  // more series (a second metric "m" set merges in)
    QueryLimits limits;
    if (rng() % 3 == 0) limits.max_points = 1 + rng() % 400;
    if (rng() % 3 == 0) limits.max_output_points = 1 + rng() % 100;
    if (rng() % 4 == 0) limits.max_memory = 1 + rng() % 20000;
    // Half the rounds have a bucket cache per engine. Without limits both
    // caches live through the round and each query is asked twice (the
    // second answer from the cache; one-series groups then print cached
    // bucket text, which RecordedResult keeps). With limits each query
    // gets empty caches: a window of groups run at once may finish (and
    // cache) groups that the sequential run stopped before, so the caches
    // would differ for later queries.
    const bool cached = rng() % 2 == 0;
    const bool limited_round =
        limits.max_points != 0 || limits.max_output_points != 0 || limits.max_memory != 0;
    const size_t helpers = 1 + rng() % 3;
    std::unique_ptr<BucketCache> cache_a, cache_b;
    for (int qi = 0; qi < 20; ++qi) {
      if (cached && (qi == 0 || limited_round)) {
        cache_a = std::make_unique<BucketCache>(1 << 20);
        cache_b = std::make_unique<BucketCache>(1 << 20);
      }
      const QueryEngine sequential(&st, limits, nullptr, cache_a.get());
      const QueryEngine parallel(&st, limits, nullptr, cache_b.get(), nullptr, {&ex, helpers});
      const std::string m = RandomQuery(rng);
      const int64_t start = kBase + static_cast<int64_t>(rng() % 9000) * 1000;
      const int64_t end = start + static_cast<int64_t>(rng() % 10000) * 1000;
      QuerySpec spec;
      ASSERT_TRUE(ParseQueryParams({{"start", std::to_string(start)}, {"end", std::to_string(end)},
                                    {"m", m}, {"ms", ""}}, 0, &spec).ok()) << m;
      StringSink a, b;
      uint64_t pa = 0, pb = 0;
      const Status sa = sequential.Execute(spec, &a, &pa);
      const Status sb = parallel.Execute(spec, &b, &pb);
      const std::string ctx = "seed " + std::to_string(seed) + " round " + std::to_string(round) +
                              " m=" + m + " start=" + std::to_string(start) +
                              " end=" + std::to_string(end) + (cached ? " cached" : "");
      ASSERT_EQ(sa.ToString(), sb.ToString()) << ctx;
      if (!sa.ok()) {
        limited += sa.code() == Status::Code::kResourceExhausted;
        limited_cached += cached && sa.code() == Status::Code::kResourceExhausted;
        continue;
      }
      ASSERT_EQ(a.body, b.body) << ctx;
      EXPECT_EQ(pa, pb) << ctx;
      ++compared;
      if (cached && !limited_round) {
        StringSink a2, b2;
        ASSERT_TRUE(sequential.Execute(spec, &a2).ok()) << ctx;
        ASSERT_TRUE(parallel.Execute(spec, &b2).ok()) << ctx;
        ASSERT_EQ(a2.body, b2.body) << ctx << " (second time)";
        ASSERT_EQ(a2.body, a.body) << ctx << " (second time)";
      }
    }
  }
  std::printf("compared %d bodies, %d limit errors (%d with caches)\n", compared, limited,
              limited_cached);
  EXPECT_GT(compared, 1000);
  EXPECT_GT(limited, 50);
  EXPECT_GT(limited_cached, 20);
}

}  // namespace
}  // namespace sundial::query
