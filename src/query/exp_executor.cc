// ExecuteExpQuery: metric queries -> expression evaluation -> JSON
// (exp_executor.h).
#include "sundial/query/exp_executor.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>

#include "exp_request_impl.h"
#include "exp_writer.h"
#include "series_source.h"
#include "sundial/common/ascii.h"
#include "sundial/query/exp_eval.h"

namespace sundial::query {
namespace {

using Clock = std::chrono::steady_clock;

// Turns one metric query's results into an ExpSet.
class SetCollector final : public ResultCollector {
 public:
  explicit SetCollector(ExpSet* out) : out_(out) {}
  void BeginResult(const SubQuery&, std::string_view metric,
                   const std::vector<std::pair<std::string_view, std::string_view>>& tags,
                   const std::vector<std::string_view>& aggregate_tags) override {
    ExpSeries& s = out_->series.emplace_back();
    for (const auto& [k, v] : tags) s.tags.emplace_back(k, v);
    s.aggregated_tags.assign(aggregate_tags.begin(), aggregate_tags.end());
    s.metrics.emplace_back(metric);
  }
  void AddPoint(Timestamp t, const Value& v) override {
    ExpSeries& s = out_->series.back();
    s.ts.push_back(t);
    s.values.push_back(v.AsDouble());
    ++points_;
  }
  uint64_t points() const { return points_; }

 private:
  ExpSet* const out_;
  uint64_t points_ = 0;
};

// The /api/query sub-query of metric m (QueryExecutor's constructor).
Status BuildSpec(const ExpRequest& req, const ExpMetric& m, QuerySpec* spec) {
  spec->start_ms = req.start_ms;
  spec->end_ms = req.end_ms;
  spec->tz = req.tz;
  spec->ms_resolution = true;
  SubQuery q;
  q.metric = m.metric;
  const std::string agg =
      AsciiLower(m.has_aggregator && !m.aggregator.empty() ? m.aggregator : req.time.aggregator);
  q.aggregator = FindAggregator(agg);
  if (q.aggregator == nullptr) {
    return Status::InvalidArgument("No such aggregation function: " + agg);
  }
  if (req.time.has_downsampler) {
    const ExpDownsampler& d = req.time.downsampler;
    std::string text = d.interval + "-" + AsciiLower(d.aggregator);
    if (d.has_fill && d.fill.policy != FillPolicy::kNone) {
      text += "-" + std::string(FillPolicyName(d.fill.policy));
    }
    SUNDIAL_RETURN_IF_ERROR(ParseDownsample(text, false, &q.downsample));
  }
  q.rate = req.time.rate;
  if (m.has_filter && !m.filter.empty()) {
    for (const ExpFilterSet& f : req.filters) {
      if (f.id != m.filter) continue;
      for (const TagFilter& t : f.tags) {
        TagFilter copy;
        SUNDIAL_RETURN_IF_ERROR(
            TagFilter::Create(t.type_name(), t.tagk(), t.filter(), t.group_by(), &copy));
        q.filters.push_back(std::move(copy));
      }
      q.explicit_tags = f.explicit_tags;
      break;
    }
  }
  spec->queries.push_back(std::move(q));
  return Status::OK();
}

// What one request has used of its limits so far.
struct Used {
  uint64_t series = 0;      // selected by the metric queries
  uint64_t raw_points = 0;  // read by the metric queries
  uint64_t points = 0;      // collected and computed
  uint64_t bytes = 0;       // held by the results
};

// What is left of the request's limits after `used`; the deadline as the
// time left. A limit used up leaves 1, so that the next run fails at once.
QueryLimits Remaining(const QueryLimits& l, const Used& used, Clock::time_point start) {
  QueryLimits r = l;
  const auto left = [](uint64_t limit, uint64_t used_up) -> uint64_t {
    return limit == 0 ? 0 : used_up >= limit ? 1 : limit - used_up;
  };
  r.max_series = left(l.max_series, used.series);
  r.max_points = left(l.max_points, used.raw_points);
  r.max_output_points = left(l.max_output_points, used.points);
  r.max_memory = left(l.max_memory, used.bytes);
  if (l.deadline_ms > 0) {
    const int64_t spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    r.deadline_ms = std::max<int64_t>(1, l.deadline_ms - spent);
  }
  return r;
}

// The request's figures so far against the configured limits. Each run
// gets what is left (Remaining), so it stops early, but names that figure
// in its error; this check names the configured one. A limit used up
// exactly leaves 1 for the next run, which this check then catches.
Status CheckUsed(const Used& used, const QueryLimits& l) {
  if (l.max_series != 0 && used.series > l.max_series) {
    return Status::ResourceExhausted(SeriesLimitMessage(l.max_series));
  }
  if (l.max_points != 0 && used.raw_points > l.max_points) {
    return Status::ResourceExhausted(PointsLimitMessage(l.max_points));
  }
  if (l.max_output_points != 0 && used.points > l.max_output_points) {
    return Status::ResourceExhausted(OutputPointsMessage(l.max_output_points));
  }
  if (l.max_memory != 0 && used.bytes > l.max_memory) {
    return Status::ResourceExhausted(MemoryLimitMessage(l.max_memory));
  }
  return Status::OK();
}

// A run's ResourceExhausted error, restated with the configured limit
// (the run's message names what was left of it).
Status Restate(const Status& s, const QueryLimits& l) {
  if (s.code() != Status::Code::kResourceExhausted) return s;
  const auto has = [&s](const char* k) { return s.message().find(k) != std::string::npos; };
  if (has("(query.max_output_bytes)")) return s;  // not shared between runs
  if (has("(query.max_series)")) return Status::ResourceExhausted(SeriesLimitMessage(l.max_series));
  if (has("(query.max_output_points)")) {
    return Status::ResourceExhausted(OutputPointsMessage(l.max_output_points));
  }
  if (has("(query.max_memory)")) return Status::ResourceExhausted(MemoryLimitMessage(l.max_memory));
  return Status::ResourceExhausted(PointsLimitMessage(l.max_points));
}

Status DeadlineStatus(const QueryLimits& l) {
  return Status::DeadlineExceeded("Query timed out: it ran longer than the limit of " +
                                  std::to_string(l.deadline_ms) + " ms (query.deadline)");
}

// Runs every metric and expression; sets[id] is each variable's result.
Status Evaluate(const QueryEngine& engine, const ExpRequest& req,
                std::map<std::string, ExpSet>* sets) {
  const QueryLimits& limits = engine.limits();
  const Clock::time_point start = Clock::now();
  Used used;
  for (const ExpMetric& m : req.metrics) {
    QuerySpec spec;
    SUNDIAL_RETURN_IF_ERROR(BuildSpec(req, m, &spec));
    ExpSet& set = (*sets)[m.id];
    set.fill = m.has_fill ? m.fill.value : 0.0;
    for (const TagFilter& f : spec.queries[0].filters) set.query_tagks.push_back(f.tagk());
    std::sort(set.query_tagks.begin(), set.query_tagks.end());
    set.query_tagks.erase(std::unique(set.query_tagks.begin(), set.query_tagks.end()),
                          set.query_tagks.end());
    SetCollector collector(&set);
    QueryEngine::CollectStats stats;
    const QueryLimits left = Remaining(limits, used, start);
    const Status s = engine.Collect(spec, left, &collector, &stats);
    if (s.code() == Status::Code::kDeadlineExceeded) return DeadlineStatus(limits);
    SUNDIAL_RETURN_IF_ERROR(Restate(s, limits));
    used.series += stats.series;
    used.raw_points += stats.raw_points;
    used.points += collector.points();
    used.bytes += ExpSetBytes(set);
    SUNDIAL_RETURN_IF_ERROR(CheckUsed(used, limits));
  }
  for (size_t idx : req.eval_order) {
    const ExpExpression& e = req.expressions[idx];
    std::vector<const ExpSet*> vars;
    for (const std::string& v : e.program.variables()) vars.push_back(&sets->at(v));
    ExpJoinSpec join;
    join.intersection = e.join.intersection;
    join.use_query_tags = e.join.use_query_tags;
    join.include_agg_tags = e.join.include_agg_tags;
    const QueryLimits left = Remaining(limits, used, start);
    ExpEvalLimits el;
    el.max_output_points = left.max_output_points;
    el.max_memory = left.max_memory;
    el.deadline_ms = limits.deadline_ms;
    if (limits.deadline_ms > 0) el.deadline = start + std::chrono::milliseconds(limits.deadline_ms);
    ExpSet out;
    const double fill = e.has_fill ? e.fill.value : std::numeric_limits<double>::quiet_NaN();
    SUNDIAL_RETURN_IF_ERROR(
        Restate(EvaluateExpression(e.program, vars, join, fill, el, &out), limits));
    for (const ExpSeries& s : out.series) used.points += s.ts.size();
    used.bytes += ExpSetBytes(out);
    SUNDIAL_RETURN_IF_ERROR(CheckUsed(used, limits));
    (*sets)[e.id] = std::move(out);
  }
  return Status::OK();
}

}  // namespace

Status ExecuteExpQuery(const QueryEngine& engine, const ExpRequest& req, std::string* json) {
  std::map<std::string, ExpSet> sets;
  SUNDIAL_RETURN_IF_ERROR(Evaluate(engine, req, &sets));
  ExpWriter w(req, engine.limits().max_output_bytes, json);
  // Outputs default to the expressions, else the metrics.
  std::vector<ExpOutput> defaults;
  const std::vector<ExpOutput>* outputs = &req.outputs;
  if (req.outputs.empty()) {
    for (const ExpExpression& e : req.expressions) defaults.push_back({true, false, e.id, ""});
    if (defaults.empty()) {
      for (const ExpMetric& m : req.metrics) defaults.push_back({true, false, m.id, ""});
    }
    outputs = &defaults;
  }
  for (const ExpOutput& o : *outputs) {
    const auto it = sets.find(o.id);
    if (it == sets.end()) continue;
    const bool is_metric = std::any_of(req.metrics.begin(), req.metrics.end(),
                                       [&](const ExpMetric& m) { return m.id == o.id; });
    SUNDIAL_RETURN_IF_ERROR(is_metric ? w.WriteMetric(o, it->second)
                                      : w.WriteExpression(o, it->second));
  }
  return w.Finish();
}

}  // namespace sundial::query
