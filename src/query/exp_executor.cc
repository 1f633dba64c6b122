// ExecuteExpQuery: metric queries -> expression evaluation -> JSON
// (exp_executor.h).
#include "sundial/query/exp_executor.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <map>

#include "exp_budget.h"
#include "exp_request_impl.h"
#include "exp_writer.h"
#include "series_source.h"
#include "sundial/common/ascii.h"
#include "sundial/query/exp_eval.h"

namespace sundial::query {
namespace {

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

// Runs every metric and expression; sets[id] is each variable's result.
Status Evaluate(const QueryEngine& engine, const ExpRequest& req,
                std::map<std::string, ExpSet>* sets) {
  const QueryLimits& limits = engine.limits();
  const ExpClock::time_point start = ExpClock::now();
  ExpUsed used;
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
    const QueryLimits left = ExpRemaining(limits, used, start);
    const Status s = engine.Collect(spec, left, &collector, &stats);
    if (s.code() == Status::Code::kDeadlineExceeded) return ExpDeadlineStatus(limits);
    SUNDIAL_RETURN_IF_ERROR(ExpRestate(s, limits));
    used.series += stats.series;
    used.raw_points += stats.raw_points;
    used.points += collector.points();
    used.bytes += ExpSetBytes(set);
    SUNDIAL_RETURN_IF_ERROR(ExpCheckUsed(used, limits));
  }
  for (size_t idx : req.eval_order) {
    const ExpExpression& e = req.expressions[idx];
    std::vector<const ExpSet*> vars;
    for (const std::string& v : e.program.variables()) vars.push_back(&sets->at(v));
    ExpJoinSpec join;
    join.intersection = e.join.intersection;
    join.use_query_tags = e.join.use_query_tags;
    join.include_agg_tags = e.join.include_agg_tags;
    const QueryLimits left = ExpRemaining(limits, used, start);
    ExpEvalLimits el;
    el.max_output_points = left.max_output_points;
    el.max_memory = left.max_memory;
    el.deadline_ms = limits.deadline_ms;
    if (limits.deadline_ms > 0) el.deadline = start + std::chrono::milliseconds(limits.deadline_ms);
    ExpSet out;
    const double fill = e.has_fill ? e.fill.value : std::numeric_limits<double>::quiet_NaN();
    SUNDIAL_RETURN_IF_ERROR(
        ExpRestate(EvaluateExpression(e.program, vars, join, fill, el, &out), limits));
    for (const ExpSeries& s : out.series) used.points += s.ts.size();
    used.bytes += ExpSetBytes(out);
    SUNDIAL_RETURN_IF_ERROR(ExpCheckUsed(used, limits));
    (*sets)[e.id] = std::move(out);
  }
  return Status::OK();
}

}  // namespace

Status ExecuteExpQuery(const QueryEngine& engine, const ExpRequest& req, std::string* json,
                       uint64_t* points) {
  if (points != nullptr) *points = 0;
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
  SUNDIAL_RETURN_IF_ERROR(w.Finish());
  if (points != nullptr) *points = w.points();
  return Status::OK();
}

}  // namespace sundial::query
