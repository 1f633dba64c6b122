// GET /api/query/gexp: parameters -> metric queries -> functions -> JSON
// (gexp_executor.h).
#include "sundial/query/gexp_executor.h"

#include <algorithm>
#include <utility>

#include "exp_budget.h"
#include "series_source.h"
#include "sundial/common/json_escape.h"
#include "sundial/query/gexp_eval.h"
#include "sundial/query/json_format.h"

namespace sundial::query {
namespace {

// Longest total shift of nested timeShift calls: 100 years.
constexpr int64_t kMaxShiftMs = int64_t{100} * 366 * 24 * 3600 * 1000;

void CollectMetrics(const GexpNode& n, std::vector<const GexpNode*>* out) {
  if (n.kind == GexpNode::Kind::kMetric) {
    out->push_back(&n);
    return;
  }
  for (const GexpNode& in : n.inputs) CollectMetrics(in, out);
}

// Turns one metric query's results into a GexpSet.
class GexpCollector final : public ResultCollector {
 public:
  explicit GexpCollector(GexpSet* out) : out_(out) {}
  void BeginResult(const SubQuery&, std::string_view metric,
                   const std::vector<std::pair<std::string_view, std::string_view>>& tags,
                   const std::vector<std::string_view>& aggregate_tags) override {
    GexpSeries& s = out_->emplace_back();
    s.metric = std::string(metric);
    for (const auto& [k, v] : tags) s.tags.emplace_back(k, v);
    s.aggregated_tags.assign(aggregate_tags.begin(), aggregate_tags.end());
  }
  void AddPoint(Timestamp t, const Value& v) override {
    GexpSeries& s = out_->back();
    s.ts.push_back(t);
    s.values.push_back(v.AsDouble());
    ++points_;
  }
  uint64_t points() const { return points_; }

 private:
  GexpSet* const out_;
  uint64_t points_ = 0;
};

uint64_t SetPoints(const GexpSet& set) {
  uint64_t n = 0;
  for (const GexpSeries& s : set) n += s.ts.size();
  return n;
}

uint64_t SetBytes(const GexpSet& set) {
  uint64_t n = 0;
  for (const GexpSeries& s : set) {
    n += sizeof(GexpSeries) + s.metric.size() + s.ts.size() * (sizeof(Timestamp) + sizeof(double));
    for (const auto& [k, v] : s.tags) n += k.size() + v.size() + 64;
    for (const std::string& a : s.aggregated_tags) n += a.size() + 32;
  }
  return n;
}

// One request's evaluation: the engine, the range and what has been used.
class GexpRun {
 public:
  GexpRun(const QueryEngine& engine, const GexpRequest& req)
      : engine_(engine), req_(req), start_(ExpClock::now()) {}

  // Evaluates node; shift_ms is the total shift of the enclosing timeShifts.
  Status Eval(const GexpNode& node, int64_t shift_ms, GexpSet* out) {
    const QueryLimits& limits = engine_.limits();
    if (node.kind == GexpNode::Kind::kMetric) return RunMetric(node, shift_ms, out);
    int64_t shift = shift_ms;
    if (node.function == GexpFunction::kTimeShift) {
      int64_t own = 0;
      SUNDIAL_RETURN_IF_ERROR(GexpTimeShift(node, &own));
      shift += own;
      if (shift > kMaxShiftMs) {
        return Status::InvalidArgument(node.name + ": shifts of more than 100 years in total");
      }
    }
    std::vector<GexpSet> inputs(node.inputs.size());
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      SUNDIAL_RETURN_IF_ERROR(Eval(node.inputs[i], shift, &inputs[i]));
    }
    const QueryLimits left = ExpRemaining(limits, used_, start_);
    ExpEvalLimits el;
    el.max_output_points = left.max_output_points;
    el.max_memory = left.max_memory;
    el.deadline_ms = limits.deadline_ms;
    if (limits.deadline_ms > 0) {
      el.deadline = start_ + std::chrono::milliseconds(limits.deadline_ms);
      if (ExpClock::now() > el.deadline) return ExpDeadlineStatus(limits);
    }
    SUNDIAL_RETURN_IF_ERROR(ExpRestate(
        EvaluateGexpCall(node, std::move(inputs), req_.start_ms, req_.end_ms, el, out), limits));
    used_.points += SetPoints(*out);
    used_.bytes += SetBytes(*out);
    return ExpCheckUsed(used_, limits);
  }

 private:
  Status RunMetric(const GexpNode& node, int64_t shift_ms, GexpSet* out) {
    const QueryLimits& limits = engine_.limits();
    QuerySpec spec;
    spec.start_ms = std::max<Timestamp>(0, req_.start_ms - shift_ms);
    spec.end_ms = std::max<Timestamp>(0, req_.end_ms - shift_ms);
    spec.tz = req_.tz;
    spec.ms_resolution = true;
    SubQuery& q = spec.queries.emplace_back();
    SUNDIAL_RETURN_IF_ERROR(ParseMSubQueryInto(node.name, &q));
    GexpCollector collector(out);
    QueryEngine::CollectStats stats;
    const Status s = engine_.Collect(spec, ExpRemaining(limits, used_, start_), &collector, &stats);
    if (s.code() == Status::Code::kDeadlineExceeded) return ExpDeadlineStatus(limits);
    SUNDIAL_RETURN_IF_ERROR(ExpRestate(s, limits));
    used_.series += stats.series;
    used_.raw_points += stats.raw_points;
    used_.points += collector.points();
    used_.bytes += SetBytes(*out);
    return ExpCheckUsed(used_, limits);
  }

  const QueryEngine& engine_;
  const GexpRequest& req_;
  const ExpClock::time_point start_;
  ExpUsed used_;
};

// Appends one result object: points within [start, end] only.
// Writes one series; returns the number of points written.
uint64_t WriteSeries(const GexpRequest& req, const GexpSeries& s, std::string* out) {
  out->append("{\"metric\":");
  AppendJsonString(s.metric, out);
  out->append(",\"tags\":{");
  for (size_t i = 0; i < s.tags.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(s.tags[i].first, out);
    out->push_back(':');
    AppendJsonString(s.tags[i].second, out);
  }
  out->append("},\"aggregateTags\":[");
  for (size_t i = 0; i < s.aggregated_tags.size(); ++i) {
    if (i > 0) out->push_back(',');
    AppendJsonString(s.aggregated_tags[i], out);
  }
  out->append("],\"dps\":{");
  uint64_t written = 0;
  for (size_t i = 0; i < s.ts.size(); ++i) {
    const Timestamp t = s.ts[i];
    if (t < req.start_ms || t > req.end_ms) continue;
    if (written++ != 0) out->push_back(',');
    out->push_back('"');
    AppendInt(req.ms_resolution ? t : t / 1000, out);
    out->append("\":");
    AppendJavaDouble(s.values[i], out);
  }
  out->append("}}");
  return written;
}

}  // namespace

Status ParseGexpRequest(const ParamList& params, Timestamp now_ms, GexpRequest* out) {
  GexpRequest req;
  ParamList base;  // the /api/query parameters, with the metric queries as m=
  for (const auto& [k, v] : params) {
    if (k == "exp") {
      if (req.expressions.size() >= kMaxGexpExpressions) {
        return Status::InvalidArgument("Too many expressions: at most " +
                                       std::to_string(kMaxGexpExpressions) + " per query");
      }
      SUNDIAL_RETURN_IF_ERROR(ParseGexp(v, &req.expressions.emplace_back()));
    } else if (k != "m" && k != "tsuid" && k != "tsuids") {
      base.emplace_back(k, v);
    }
  }
  if (req.expressions.empty()) return Status::InvalidArgument("Missing parameter <code>exp</code>");
  std::vector<const GexpNode*> metrics;
  for (const GexpNode& e : req.expressions) CollectMetrics(e, &metrics);
  if (metrics.size() > kMaxGexpMetrics) {
    return Status::InvalidArgument("Too many metric queries: at most " +
                                   std::to_string(kMaxGexpMetrics) + " per query");
  }
  for (const GexpNode* m : metrics) base.emplace_back("m", m->name);
  QuerySpec spec;
  SUNDIAL_RETURN_IF_ERROR(ParseQueryParams(base, now_ms, &spec));
  req.start_ms = spec.start_ms;
  req.end_ms = spec.end_ms;
  req.tz = spec.tz;
  req.ms_resolution = spec.ms_resolution;
  *out = std::move(req);
  return Status::OK();
}

Status ExecuteGexpQuery(const QueryEngine& engine, const GexpRequest& req, std::string* json,
                        uint64_t* points) {
  if (points != nullptr) *points = 0;
  uint64_t written = 0;
  GexpRun run(engine, req);
  const uint64_t max_bytes = engine.limits().max_output_bytes;
  json->assign("[");
  bool first = true;
  for (const GexpNode& e : req.expressions) {
    GexpSet set;
    SUNDIAL_RETURN_IF_ERROR(run.Eval(e, 0, &set));
    for (const GexpSeries& s : set) {
      if (!first) json->push_back(',');
      first = false;
      written += WriteSeries(req, s, json);
      if (max_bytes != 0 && json->size() > max_bytes) {
        return Status::ResourceExhausted(OutputBytesMessage(max_bytes));
      }
    }
  }
  json->push_back(']');
  if (points != nullptr) *points = written;
  return Status::OK();
}

}  // namespace sundial::query
