// /api/query execution: select series with the index, group them, run the
// per-series pipelines and the group merge, stream the result.
#include "sundial/query/query_engine.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <memory>
#include <type_traits>
#include <utility>

#include "cached_source.h"
#include "group_aggregator.h"
#include "query_limits.h"
#include "query_writer.h"
#include "rollup_source.h"
#include "series_match.h"
#include "series_source.h"
#include "sundial/common/executor.h"
#include "sundial/query/json_format.h"

namespace sundial::query {
namespace {

using storage::NameKind;
using storage::SeriesKeyRef;

struct SeriesEntry {
  SeriesId id;
  SeriesKeyRef key;  // names borrowed from the storage
  std::string tsuid;  // empty unless several series are ordered or showTSUIDs
};

// The series of one sub-query, grouped. Groups are in output order.
struct SubPlan {
  const SubQuery* q;
  std::string metric;
  std::vector<SeriesEntry> series;
  std::vector<std::vector<size_t>> groups;  // indices into series
  Timestamp scan_start_ms;
  Timestamp scan_end_ms;  // exclusive
  // By index into series: whether a read-ahead hint asked for all of the
  // series' data (HintRawReads); empty when none was given.
  std::vector<bool> hinted;
  // What that hint read into memory for the hinted series' iterators (may
  // be null); held until the plan's groups have run.
  std::shared_ptr<const storage::ReadAhead> kept;
};

// OpenTSDB's scan window (TsdbQuery.getScanStartTimeSeconds/EndTime).
void ComputeScanWindow(const QuerySpec& spec, const SubQuery& q, SubPlan* plan) {
  constexpr int64_t kMaxSec = int64_t{1} << 42;  // keeps 1000*s far from overflow
  const int64_t s = std::min(spec.start_ms / 1000, kMaxSec);
  const int64_t e = std::min(spec.end_ms / 1000, kMaxSec) + 1;
  const int64_t iv = q.downsample.enabled && !q.downsample.all ? q.downsample.interval_ms : 0;
  int64_t s1 = s;
  if (iv > 0) s1 = s - ((1000 * s) % iv) / 1000;
  const int64_t scan_start = std::max<int64_t>(0, s1 - s1 % 3600);
  int64_t scan_end = 0;
  if (iv > 0) {
    const int64_t e1 = e + (iv - (1000 * e) % iv) / 1000;
    scan_end = e1 % 3600 == 0 ? e1 : e1 + 3600 - e1 % 3600;
  } else {
    scan_end = e + 3600 - e % 3600;
  }
  plan->scan_start_ms = scan_start * 1000;
  plan->scan_end_ms = scan_end * 1000;
}

// The first literal_or filter, whose literals narrow the candidates with
// the index; null if there is none.
const TagFilter* FirstLiteralOr(const SubQuery& q) {
  for (const TagFilter& f : q.filters) {
    if (f.type() == FilterType::kLiteralOr) return &f;
  }
  return nullptr;
}

// with_tsuids: every entry gets its tsuid (otherwise only when there are
// several to order). Filter matching is charged to budget as work.
Status SelectSeries(storage::Storage* st, const SubQuery& q, bool with_tsuids,
                    QueryBudget* budget, SubPlan* plan) {
  std::vector<SeriesId> ids;
  if (!q.tsuids.empty()) {
    SUNDIAL_RETURN_IF_ERROR(ResolveTsuids(st, q, budget, &plan->metric, &ids));
  } else {
    plan->metric = q.metric;
    const TagFilter* lit = FirstLiteralOr(q);
    ids = lit != nullptr ? st->SeriesOfMetricWithTag(q.metric, lit->tagk(), lit->literals())
                         : st->SeriesOfMetric(q.metric);
    uint32_t uid = 0;
    if (ids.empty() && !st->LookupUid(NameKind::kMetric, q.metric, &uid).ok()) {
      return NoSuchName("metrics", q.metric);
    }
    SUNDIAL_RETURN_IF_ERROR(CheckNames(st, q));
  }
  plan->series.reserve(ids.size());
  for (SeriesId id : ids) {
    SeriesEntry e;
    e.id = id;
    if (!st->GetSeriesKeyRef(id, &e.key).ok()) continue;
    // About one work unit per 128 bytes of tag text matched.
    uint64_t cost = 1;
    for (const auto& kv : e.key.tags) cost += kv.second.size() >> 7;
    if (!budget->Tick(cost)) return budget->status();
    if (!PassesFilters(q, e.key)) continue;
    plan->series.push_back(std::move(e));
  }
  // TSUIDs order the series; one series needs them only to be shown.
  if (plan->series.size() < 2 && !with_tsuids) return Status::OK();
  for (SeriesEntry& e : plan->series) e.tsuid = TsuidOf(e.key);
  std::sort(plan->series.begin(), plan->series.end(),
            [](const SeriesEntry& a, const SeriesEntry& b) { return a.tsuid < b.tsuid; });
  return Status::OK();
}

void GroupSeries(const SubQuery& q, SubPlan* plan) {
  const size_t n = plan->series.size();
  if (q.aggregator->fn == AggFn::kNone || n < 2) {
    plan->groups.reserve(n);
    for (size_t i = 0; i < n; ++i) plan->groups.push_back({i});
    return;
  }
  std::vector<std::string_view> keys;  // the group-by tag keys, sorted, once each
  for (const TagFilter& f : q.filters) {
    if (f.group_by()) keys.push_back(f.tagk());
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const size_t k = keys.size();
  // Series i's values of the keys are values[i*k, i*k+k) ("" where it has
  // none). Groups are in order of these lists, members in series order.
  std::vector<std::string_view> values(n * k);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < k; ++j) {
      const std::string_view* v = TagValue(plan->series[i].key, keys[j]);
      if (v != nullptr) values[i * k + j] = *v;
    }
  }
  const auto less = [&](size_t a, size_t b) {
    return std::lexicographical_compare(values.begin() + a * k, values.begin() + a * k + k,
                                        values.begin() + b * k, values.begin() + b * k + k);
  };
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), less);
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || less(order[i - 1], order[i])) plan->groups.emplace_back();
    plan->groups.back().push_back(order[i]);
  }
}

// OpenTSDB's SpanGroup.computeTags: a tagk whose value differs between
// members is an aggregate tag, any other tagk seen keeps its value. Series
// keys list tags sorted by key, so the members are merged in one pass each.
// h borrows strings from plan.
void ComputeTags(const SubPlan& plan, const std::vector<size_t>& members, bool with_tsuids,
                 GroupHeader* h) {
  if (members.size() == 1) {  // nothing to compare: every tag is kept
    const auto& tags = plan.series[members[0]].key.tags;
    h->tags.reserve(tags.size());
    for (const auto& [k, v] : tags) h->tags.emplace_back(k, v);
    if (with_tsuids) h->tsuids.push_back(plan.series[members[0]].tsuid);
    return;
  }
  struct Seen {
    std::string_view key, value;
    bool conflicting;
  };
  std::vector<Seen> seen, merged;
  const size_t most = plan.series[members.front()].key.tags.size();
  seen.reserve(most);
  merged.reserve(most);
  for (size_t m : members) {
    const auto& tags = plan.series[m].key.tags;
    merged.clear();
    size_t i = 0, j = 0;
    while (i < seen.size() || j < tags.size()) {
      if (j == tags.size() || (i < seen.size() && seen[i].key < tags[j].first)) {
        merged.push_back(seen[i++]);
      } else if (i == seen.size() || tags[j].first < seen[i].key) {
        merged.push_back({tags[j].first, tags[j].second, false});
        ++j;
      } else {
        merged.push_back(seen[i]);
        merged.back().conflicting |= seen[i].value != tags[j].second;
        ++i;
        ++j;
      }
    }
    seen.swap(merged);
  }
  h->tags.reserve(seen.size());
  for (const Seen& t : seen) {
    if (t.conflicting) {
      h->aggregate_tags.push_back(t.key);
    } else {
      h->tags.emplace_back(t.key, t.value);
    }
  }
  if (!with_tsuids) return;
  for (size_t m : members) h->tsuids.push_back(plan.series[m].tsuid);
  std::sort(h->tsuids.begin(), h->tsuids.end());
}

// Writes the group's points within [start, end] to w, printing a cached
// bucket's text where texts (null, or the one member's cached source) has
// it. Stops when the budget runs out (budget->status() says why).
template <typename W>
void WritePoints(const QuerySpec& spec, CachedDownsampleSource* texts, size_t members,
                 QueryBudget* budget, GroupAggregator* agg, W* w) {
  // Written points are counted by Emit (which also checks the deadline)
  // kEmitBatch at a time, so the limit may be passed by that many; a
  // skipped point is work for Tick, at the cost of a merge step over every
  // member.
  constexpr uint64_t kEmitBatch = 64;
  const uint64_t step_cost = 1 + members / 8;
  uint64_t unemitted = 0;
  Point p;
  std::string_view text;
  while (agg->Next(&p)) {
    if (p.t < spec.start_ms || p.t > spec.end_ms) {
      if (!budget->Tick(step_cost)) break;
      continue;
    }
    if (++unemitted == kEmitBatch &&
        (!budget->Emit(std::exchange(unemitted, 0)) || !budget->status().ok())) {
      break;
    }
    if (texts != nullptr && texts->CachedText(p.t, p.v, &text)) {
      w->AddPointText(p.t, text);
    } else {
      w->AddPoint(p.t, p.v);
    }
  }
  if (unemitted != 0) budget->Emit(unemitted);
}

// The annotations of one query (null store: none are added). series: look
// up each group's members (only when any series annotation exists).
struct AnnotationUse {
  const AnnotationStore* store = nullptr;
  bool series = false;
  std::string global;  // the global annotations in range, when asked for
};

// Appends the annotations of the members of a group, in TSUID order.
void AddAnnotations(const AnnotationUse& ann, const QuerySpec& spec, const SubPlan& plan,
                    const std::vector<size_t>& members, GroupHeader* h) {
  h->global_annotations = &ann.global;
  if (!ann.series) return;
  std::vector<std::string_view> tsuids;
  for (size_t m : members) tsuids.push_back(plan.series[m].tsuid);
  std::sort(tsuids.begin(), tsuids.end());
  for (std::string_view t : tsuids) {
    if (!t.empty()) ann.store->AppendRange(t, spec.start_ms, spec.end_ms, &h->annotations);
  }
}

// Read-ahead one request may ask storage for, over all its sub-queries:
// enough for a dashboard panel's series over days of compacted data,
// small beside the page cache of a 512 MB machine. Page-file pages are
// read into memory (Storage::WillRead's kept), so a request holds up to
// this much beside query.max_memory while it runs.
constexpr uint64_t kReadAheadBytes = 8u << 20;

// When plan's groups will read raw points (not rollups), asks storage to
// start reading all of its series from disk at once, in the order the
// groups will read them: after a restart the disk then serves them in
// parallel rather than one group's reads after another's. *left is the
// request's read-ahead still unspent; the hint spends from it. Marks the
// series it covered in plan->hinted. With keep, storage may also read
// them now and hand them back in plan->kept: never on an I/O thread (a
// small query's run), where a synchronous read of up to *left bytes from a
// slow disk would hold up every connection.
void HintRawReads(storage::Storage* st, const rollup::RollupStore* rollups,
                  const QuerySpec& spec, bool keep, SubPlan* plan, uint64_t* left) {
  if (*left == 0) return;
  const DownsampleContext ctx{&plan->q->downsample, &spec.tz, spec.start_ms, spec.end_ms,
                              plan->scan_start_ms, plan->scan_end_ms};
  if (rollups != nullptr && RollupEligible(*plan->q, ctx)) return;
  std::vector<size_t> order;
  std::vector<SeriesId> ids;
  order.reserve(plan->series.size());
  ids.reserve(plan->series.size());
  for (const std::vector<size_t>& g : plan->groups) {
    for (size_t m : g) {
      order.push_back(m);
      ids.push_back(plan->series[m].id);
    }
  }
  size_t covered = 0;
  *left -= std::min(
      *left,
      st->WillRead(ids, plan->scan_start_ms, plan->scan_end_ms - 1, *left, &covered,
                   keep ? &plan->kept : nullptr));
  plan->hinted.assign(plan->series.size(), false);
  for (size_t i = 0; i < covered && i < order.size(); ++i) plan->hinted[order[i]] = true;
}

// Whether the downsampled points of one series over the plan's scan window
// are fewer than kMaterializeMaxBuckets (a Point, 24 bytes, each).
constexpr uint64_t kMaterializeMaxBuckets = 1024;
bool FewBuckets(const DownsampleSpec& d, const SubPlan& plan) {
  if (!d.enabled) return false;
  if (d.all) return true;
  if (d.interval_ms <= 0 || plan.scan_end_ms < plan.scan_start_ms) return false;
  const uint64_t span =
      static_cast<uint64_t>(plan.scan_end_ms) - static_cast<uint64_t>(plan.scan_start_ms);
  return span / static_cast<uint64_t>(d.interval_ms) < kMaterializeMaxBuckets - 2;
}

// Runs one group and writes its result (if any member has data).
// Adds the group's figures to *total.
// cache: null, or the bucket cache with what this query reads under.
// W is ResultWriter (JSON), RecordedResult (JSON later) or CollectWriter
// (data); the first two print cached bucket text.
template <typename W>
Status RunGroup(storage::Storage* st, const rollup::RollupStore* rollups, const CacheUse* cache,
                const AnnotationUse& ann, const QuerySpec& spec, const SubPlan& plan,
                const std::vector<size_t>& members, QueryBudget* budget, W* w,
                ResultStats* total) {
  const SubQuery& q = *plan.q;
  const bool timed = spec.show_stats || spec.show_summary;
  const auto t0 = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  const uint64_t points_before = budget->points();
  const DownsampleContext ctx{&q.downsample, &spec.tz, spec.start_ms, spec.end_ms,
                              plan.scan_start_ms, plan.scan_end_ms};
  std::vector<std::unique_ptr<RawSource>> raws;
  std::vector<std::unique_ptr<PointSource>> sources;
  std::vector<size_t> present;
  sources.reserve(members.size());
  present.reserve(members.size());
  // The pipelines of the group's members live together until it ends.
  const uint64_t held = members.size() * kSeriesStateBytes;
  struct Held {
    QueryBudget* b;
    uint64_t n;
    ~Held() { b->Release(n); }
  } release{budget, held};
  if (!budget->Reserve(held)) return budget->status();
  // A group of downsampled series runs each member's pipeline to its end
  // before opening the next (Materialize) when its buckets take less than
  // a storage iterator holds (a decoded cold run: up to 48 KiB). Without
  // it, every member's iterator is open at once: one sum over 20,000
  // compacted series held 0.9 GB.
  const bool materialize = members.size() > 1 && FewBuckets(q.downsample, plan);
  std::vector<std::unique_ptr<PointSource>> materialized;
  const bool use_rollups = rollups != nullptr && RollupEligible(q, ctx);
  const bool use_cache = !use_rollups && cache != nullptr && CacheEligible(q);
  std::vector<std::pair<Timestamp, Timestamp>> partitions;
  if (use_rollups) partitions = st->PartitionRanges();
  // The cached source of a one-series group: its output points that are
  // cached buckets unchanged are printed from the cache's text.
  CachedDownsampleSource* texts = nullptr;
  for (size_t m : members) {
    // Planner: downsampled values from hourly rollups, or kept from
    // earlier queries, or (below) downsampled from raw points.
    std::unique_ptr<PointSource> downsampled;
    if (use_rollups) {
      auto src = std::make_unique<RollupSource>(st, rollups, plan.series[m].id, ctx, budget,
                                                &partitions);
      if (!src->Prime()) continue;
      downsampled = std::move(src);
    } else if (use_cache) {
      auto src = std::make_unique<CachedDownsampleSource>(st, *cache, plan.series[m].id, ctx,
                                                          budget);
      if (!src->Prime()) continue;
      if (std::is_same_v<W, ResultWriter> || std::is_same_v<W, RecordedResult>) {
        texts = src.get();
      }
      downsampled = std::move(src);
    }
    if (downsampled != nullptr) {
      sources.push_back(BuildAfterDownsample(std::move(downsampled), q, ctx));
      present.push_back(m);
      continue;
    }
    const SeriesId id = plan.series[m].id;
    const Timestamp end = plan.scan_end_ms - 1;
    const bool hinted = m < plan.hinted.size() && plan.hinted[m];
    auto raw = std::make_unique<RawSource>(
        hinted ? st->NewHintedIterator(id, plan.scan_start_ms, end, plan.kept.get())
               : st->NewIterator(id, plan.scan_start_ms, end),
        budget);
    if (!raw->Prime()) continue;
    if (materialize) {
      auto done = Materialize(BuildSeriesPipeline(std::move(raw), q, ctx), budget);
      if (done == nullptr) return budget->status();
      materialized.push_back(std::move(done));
    } else {
      raws.push_back(std::move(raw));
    }
    present.push_back(m);
  }
  SUNDIAL_RETURN_IF_ERROR(budget->status());
  if (present.empty()) return Status::OK();
  GroupHeader h;
  h.metric = &plan.metric;
  ComputeTags(plan, present, spec.show_tsuids, &h);
  if (ann.store != nullptr) AddAnnotations(ann, spec, plan, present, &h);
  for (auto& raw : raws) sources.push_back(BuildSeriesPipeline(std::move(raw), q, ctx));
  for (auto& done : materialized) sources.push_back(std::move(done));
  GroupAggregator agg(std::move(sources), *q.aggregator, q.rate);
  w->BeginResult(q, h);
  WritePoints(spec, present.size() == 1 ? texts : nullptr, present.size(), budget, &agg, w);
  SUNDIAL_RETURN_IF_ERROR(budget->status());
  ResultStats stats;
  stats.query_index = q.index;
  stats.series = present.size();
  stats.raw_points = budget->points() - points_before;
  stats.emitted = w->emitted();
  if (timed) {
    stats.time_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  total->series += stats.series;
  total->raw_points += stats.raw_points;
  total->emitted += stats.emitted;
  if (!w->EndResult(stats)) return Status::Unavailable("client went away");
  return Status::OK();
}

// The most groups a parallel plan runs before writing them: their records
// wait in memory (each fewer than kMaterializeMaxBuckets points).
constexpr size_t kParallelWindow = 32;
// The most series of a group in a parallel plan (each lane holds one
// group's pipelines at a time).
constexpr size_t kParallelMaxMembers = 64;

// Whether plan's groups may run on the query's lanes at once: several
// groups, each a few series whose downsampled output is small.
bool RunsInParallel(const QueryLanes& lanes, const SubPlan& plan) {
  if (lanes.executor == nullptr || lanes.helpers == 0 || plan.groups.size() < 2) return false;
  if (!FewBuckets(plan.q->downsample, plan)) return false;
  for (const std::vector<size_t>& g : plan.groups) {
    if (g.size() > kParallelMaxMembers) return false;
  }
  return true;
}

// Runs plan's groups kParallelWindow at a time on the lanes, each on a
// budget of its own (QueryBudget::PartLimits), then absorbs their budgets
// and writes them in order. The body and the errors are those of RunGroup
// in sequence: a group that fails, or passes a limit with the groups
// before it, runs again on the query's budget (and fails there). Work
// beyond a limit is bounded by the window: each group runs on what was
// left of the limits when the window started.
Status RunGroupsInParallel(const QueryLanes& lanes, storage::Storage* st,
                           const rollup::RollupStore* rollups, const CacheUse* cache,
                           const AnnotationUse& ann, const QuerySpec& spec, const SubPlan& plan,
                           QueryBudget* budget, ResultWriter* w, ResultStats* total) {
  struct Part {
    std::unique_ptr<QueryBudget> budget;
    RecordedResult record;
    ResultStats total;
    Status status;
    std::vector<DeferredPut> puts;  // its bucket cache entries, stored once it stands
  };
  const size_t n = plan.groups.size();
  for (size_t from = 0; from < n; from += kParallelWindow) {
    const size_t count = std::min(kParallelWindow, n - from);
    const BudgetLimits limits = budget->PartLimits();
    std::vector<Part> parts(count);
    ParallelFor(lanes.executor, lanes.helpers, count, [&](size_t i) {
      Part& p = parts[i];
      p.budget = std::make_unique<QueryBudget>(limits);
      CacheUse deferring;
      if (cache != nullptr) {
        deferring = *cache;
        deferring.deferred = &p.puts;
      }
      p.status = RunGroup(st, rollups, cache != nullptr ? &deferring : nullptr, ann, spec, plan,
                          plan.groups[from + i], p.budget.get(), &p.record, &p.total);
    });
    for (size_t i = 0; i < count; ++i) {
      Part& p = parts[i];
      const bool stands = budget->Absorb(*p.budget);
      if (cache != nullptr) SettleDeferred(*cache, &p.puts, stands);
      if (!stands) {
        // It failed, or passed a limit with the groups before it: run it
        // again on the query's budget, to fail where and as it would have
        // (its cache entries were not stored, so it reads what it read).
        p.record = RecordedResult();
        p.total = ResultStats();
        p.status = RunGroup(st, rollups, cache, ann, spec, plan, plan.groups[from + i], budget,
                            &p.record, &p.total);
      }
      if (!p.status.ok()) return budget->status().ok() ? p.status : budget->status();
      SUNDIAL_RETURN_IF_ERROR(budget->status());
      if (!p.record.Replay(w)) return Status::Unavailable("client went away");
      total->series += p.total.series;
      total->raw_points += p.total.raw_points;
      total->emitted += p.total.emitted;
    }
  }
  return Status::OK();
}

}  // namespace

QueryEngine::QueryEngine(storage::Storage* storage, const QueryLimits& limits,
                         const rollup::RollupStore* rollups, BucketCache* cache,
                         const AnnotationStore* annotations, const QueryLanes& lanes)
    : storage_(storage),
      limits_(limits),
      rollups_(rollups),
      cache_(cache),
      annotations_(annotations),
      lanes_(lanes) {}

Status QueryEngine::Execute(const QuerySpec& spec, ChunkSink* sink, uint64_t* points) const {
  return Run(spec, nullptr, sink, points);
}

Status QueryEngine::ExecuteSmall(const QuerySpec& spec, const SmallQueryBound& bound,
                                 std::string* json, uint64_t* points) const {
  // Collects every piece into *json.
  class StringSink final : public ChunkSink {
   public:
    explicit StringSink(std::string* out) : out_(out) {}
    bool Write(std::string&& chunk) override {
      if (out_->empty()) {
        out_->swap(chunk);
      } else {
        out_->append(chunk);
      }
      return true;
    }

   private:
    std::string* const out_;
  };
  json->clear();
  if (points != nullptr) *points = 0;
  if (bound.max_series == 0 || bound.max_points == 0) return Status::Busy("no small-query bound");
  StringSink sink(json);
  uint64_t written = 0;
  Status s = Run(spec, &bound, &sink, &written);
  if (!s.ok()) {
    json->clear();
  } else if (points != nullptr) {
    *points = written;
  }
  return s;
}

namespace {

// The bucket cache's view for one run (empty without a cache); *collected
// counts what the run's reads let the cache collect. Taken before any raw
// point is read (bucket_cache.h).
CacheUse UseCache(BucketCache* cache, storage::Storage* storage,
                  std::atomic<size_t>* collected) {
  if (cache == nullptr) return CacheUse();
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  return CacheUse{cache, cache->AdvanceWatermark(now_ms), storage->removals(), collected};
}

// Phase 1 of Run: selects and groups the series of every sub-query and
// applies the limits known before reading.
Status PlanQuery(storage::Storage* storage, const QueryLimits& limits, const QuerySpec& spec,
                 const SmallQueryBound* bound, bool with_tsuids, QueryBudget* budget,
                 std::vector<SubPlan>* plans) {
  plans->resize(spec.queries.size());
  uint64_t total_series = 0;
  uint64_t known_points = 0;
  for (size_t i = 0; i < spec.queries.size(); ++i) {
    const SubQuery& q = spec.queries[i];
    if (q.downsample.enabled && q.downsample.fill == FillPolicy::kScalar) {
      return Status::InvalidArgument("The scalar fill policy is not supported");
    }
    SUNDIAL_RETURN_IF_ERROR(CheckRegexLengths(limits, q));
  }
  for (size_t i = 0; i < spec.queries.size(); ++i) {
    const SubQuery& q = spec.queries[i];
    SubPlan& plan = (*plans)[i];
    plan.q = &q;
    SUNDIAL_RETURN_IF_ERROR(SelectSeries(storage, q, with_tsuids, budget, &plan));
    total_series += plan.series.size();
    if (limits.max_series != 0 && total_series > limits.max_series) {
      return Status::ResourceExhausted(SeriesLimitMessage(limits.max_series));
    }
    if (bound != nullptr && total_series > bound->max_series) {
      return Status::Busy("more series than the small-query bound");
    }
    ComputeScanWindow(spec, q, &plan);
    GroupSeries(q, &plan);
    // Before any point is read: a result known to be too big is refused.
    const uint64_t known = KnownOutputPoints(spec, q.downsample, plan.groups.size());
    known_points = known > UINT64_MAX - known_points ? UINT64_MAX : known_points + known;
    SUNDIAL_RETURN_IF_ERROR(CheckKnownOutput(limits, known_points));
    if (bound != nullptr && known_points > bound->max_points) {
      return Status::Busy("more output points than the small-query bound");
    }
  }
  return Status::OK();
}

}  // namespace

Status QueryEngine::MatchSeries(const QuerySpec& spec, std::vector<SeriesId>* ids) const {
  QueryBudget budget(BudgetFor(limits_, nullptr));
  ids->clear();
  for (const SubQuery& q : spec.queries) {
    SubPlan plan;
    plan.q = &q;
    SUNDIAL_RETURN_IF_ERROR(SelectSeries(storage_, q, false, &budget, &plan));
    for (const SeriesEntry& e : plan.series) ids->push_back(e.id);
  }
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  return Status::OK();
}

Status QueryEngine::Run(const QuerySpec& spec, const SmallQueryBound* bound,
                        ChunkSink* sink, uint64_t* points) const {
  if (points != nullptr) *points = 0;
  const bool timed = spec.show_summary;
  const auto start_time =
      timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  QueryBudget budget(BudgetFor(limits_, bound));
  // Phase 1: resolve every sub-query, so that name and limit errors are
  // reported before any byte of the body is sent.
  std::vector<SubPlan> plans;
  AnnotationUse ann;
  if (annotations_ != nullptr && !spec.no_annotations) {
    ann.store = annotations_;
    ann.series = annotations_->HasSeriesAnnotations();
    if (spec.global_annotations) {
      annotations_->AppendRange("", spec.start_ms, spec.end_ms, &ann.global);
    }
  }
  SUNDIAL_RETURN_IF_ERROR(PlanQuery(storage_, limits_, spec, bound,
                                    spec.show_tsuids || ann.series, &budget, &plans));
  // Phase 2: stream.
  std::atomic<size_t> collected{0};
  const CacheUse cache = UseCache(cache_, storage_, &collected);
  CountingSink counted(sink, limits_.max_output_bytes, &budget);
  ResultWriter w(spec, &counted);
  ResultStats total;
  // Reports the points written however the run ends (RunGroup adds a
  // group's points to total as it finishes the group).
  struct Report {
    const ResultStats& total;
    uint64_t* points;
    ~Report() {
      if (points != nullptr) *points = total.emitted;
    }
  } report{total, points};
  uint64_t read_ahead = kReadAheadBytes;
  for (SubPlan& plan : plans) {
    HintRawReads(storage_, rollups_, spec, bound == nullptr, &plan, &read_ahead);
    const CacheUse* use = cache_ != nullptr ? &cache : nullptr;
    if (bound == nullptr && RunsInParallel(lanes_, plan)) {
      SUNDIAL_RETURN_IF_ERROR(RunGroupsInParallel(lanes_, storage_, rollups_, use, ann, spec,
                                                  plan, &budget, &w, &total));
    } else {
      for (const std::vector<size_t>& g : plan.groups) {
        const Status s =
            RunGroup(storage_, rollups_, use, ann, spec, plan, g, &budget, &w, &total);
        if (!s.ok()) return budget.status().ok() ? s : budget.status();
      }
    }
    plan.kept.reset();  // its iterators are gone
  }
  if (timed) {
    total.time_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_time)
            .count();
  }
  if (!w.Finish(total)) {
    return budget.status().ok() ? Status::Unavailable("client went away") : budget.status();
  }
  return Status::OK();
}

namespace {

// RunGroup's writer for Collect(): hands the points to a ResultCollector
// and reserves the memory they will hold in budget.
class CollectWriter {
 public:
  // Bytes a collected point holds (timestamp and value).
  static constexpr uint64_t kPointBytes = 16;

  CollectWriter(ResultCollector* out, QueryBudget* budget) : out_(out), budget_(budget) {}

  void BeginResult(const SubQuery& q, const GroupHeader& h) {
    out_->BeginResult(q, *h.metric, h.tags, h.aggregate_tags);
    emitted_ = 0;
  }
  void AddPoint(Timestamp t, const Value& v) {
    if (++unreserved_ == kReserveBatch) {
      unreserved_ = 0;
      budget_->Reserve(kReserveBatch * kPointBytes);  // a failure ends the query
    }
    out_->AddPoint(t, v);
    ++emitted_;
  }
  // Never called: RunGroup gives cached texts to ResultWriter only.
  void AddPointText(Timestamp, std::string_view) { assert(false); }
  bool EndResult(const ResultStats&) { return true; }
  uint64_t emitted() const { return emitted_; }

 private:
  static constexpr uint64_t kReserveBatch = 256;
  ResultCollector* const out_;
  QueryBudget* const budget_;
  uint64_t unreserved_ = 0;
  uint64_t emitted_ = 0;
};

}  // namespace

Status QueryEngine::Collect(const QuerySpec& spec, const QueryLimits& limits,
                            ResultCollector* out, CollectStats* stats) const {
  QueryBudget budget(BudgetFor(limits, nullptr));
  std::vector<SubPlan> plans;
  struct Report {
    const std::vector<SubPlan>& plans;
    const QueryBudget& budget;
    CollectStats* stats;
    ~Report() {
      if (stats == nullptr) return;
      stats->series = 0;
      for (const SubPlan& p : plans) stats->series += p.series.size();
      stats->raw_points = budget.points();
    }
  } report{plans, budget, stats};
  SUNDIAL_RETURN_IF_ERROR(PlanQuery(storage_, limits, spec, nullptr, spec.show_tsuids, &budget, &plans));
  std::atomic<size_t> collected{0};
  const CacheUse cache = UseCache(cache_, storage_, &collected);
  CollectWriter w(out, &budget);
  ResultStats total;
  uint64_t read_ahead = kReadAheadBytes;
  for (SubPlan& plan : plans) {
    HintRawReads(storage_, rollups_, spec, true, &plan, &read_ahead);
    for (const std::vector<size_t>& g : plan.groups) {
      const Status s = RunGroup(storage_, rollups_, cache_ != nullptr ? &cache : nullptr,
                                AnnotationUse(), spec,
                                plan, g, &budget, &w, &total);
      if (!s.ok()) return budget.status().ok() ? s : budget.status();
    }
    plan.kept.reset();  // its iterators are gone
  }
  return budget.status();
}

std::string QueryEngine::AggregatorsJson() {
  size_t n = 0;
  const Aggregator* all = AllAggregators(&n);
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) {
    if (i) out.push_back(',');
    AppendJsonString(all[i].name, &out);
  }
  out.push_back(']');
  return out;
}

}  // namespace sundial::query
