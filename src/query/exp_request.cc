// ExpRequest validation: OpenTSDB's Query/Timespan/Downsampler/Metric/
// Filter/Expression validate() in the same order with the same messages,
// then what QueryExecutor checks (time range, variables, cycles).
#include "sundial/query/exp_request.h"

#include <cmath>
#include <limits>
#include <set>

#include "exp_request_impl.h"
#include "sundial/common/ascii.h"
#include "sundial/query/aggregator.h"
#include "sundial/query/time_util.h"

namespace sundial::query {
namespace {

Status Invalid(const std::string& outer, const Status& inner) {
  return Status::InvalidArgument(outer + ": " + inner.message());
}

// Aggregators.get(name.toLowerCase()).
Status CheckAggregator(bool has, const std::string& name) {
  if (!has || name.empty()) return Status::InvalidArgument("Missing or empty aggregator");
  if (FindAggregator(AsciiLower(name)) == nullptr) {
    return Status::InvalidArgument("Invalid aggregator");
  }
  return Status::OK();
}

Status ValidateTime(const ExpTime& t, Timestamp now_ms, TimeZone* tz) {
  if (!t.has_start || t.start.empty()) return Status::InvalidArgument("missing or empty start");
  if (t.has_timezone && !t.timezone.empty()) {
    SUNDIAL_RETURN_IF_ERROR(TimeZone::Load(t.timezone, tz));
  }
  Timestamp ignored = 0;
  SUNDIAL_RETURN_IF_ERROR(ParseDateTime(t.start, now_ms, *tz, &ignored));
  if (t.has_end && !t.end.empty()) {
    SUNDIAL_RETURN_IF_ERROR(ParseDateTime(t.end, now_ms, *tz, &ignored));
  }
  if (t.has_downsampler) {
    const ExpDownsampler& d = t.downsampler;
    if (d.interval.empty()) return Status::InvalidArgument("Missing or empty interval");
    int64_t ms = 0;
    SUNDIAL_RETURN_IF_ERROR(ParseDuration(d.interval, &ms));
    SUNDIAL_RETURN_IF_ERROR(CheckAggregator(true, d.aggregator));
  }
  return CheckAggregator(t.has_aggregator, t.aggregator);
}

Status ValidateMetric(const ExpMetric& m, Timestamp now_ms) {
  if (!m.has_metric || m.metric.empty()) return Status::InvalidArgument("missing or empty metric");
  if (!m.has_id || m.id.empty()) return Status::InvalidArgument("missing or empty id");
  SUNDIAL_RETURN_IF_ERROR(ValidateExpId(m.id));
  if (m.has_time_offset) {
    Timestamp ignored = 0;
    SUNDIAL_RETURN_IF_ERROR(ParseDateTime(m.time_offset, now_ms, TimeZone(), &ignored));
  }
  if (m.has_aggregator && !m.aggregator.empty()) {
    SUNDIAL_RETURN_IF_ERROR(CheckAggregator(true, m.aggregator));
  }
  return Status::OK();
}

Status ValidateExpression(ExpExpression* e) {
  if (!e->has_id || e->id.empty()) return Status::InvalidArgument("missing or empty id");
  SUNDIAL_RETURN_IF_ERROR(ValidateExpId(e->id));
  if (!e->has_expr || e->expr.empty()) return Status::InvalidArgument("missing or empty expr");
  return ExprProgram::Parse(e->expr, &e->program);
}

// Orders the expressions so that each follows those it uses (QueryExecutor's
// DAG): a self reference or a cycle is an error.
Status OrderExpressions(ExpRequest* r) {
  const size_t n = r->expressions.size();
  std::vector<std::vector<size_t>> uses(n);
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& v : r->expressions[i].program.variables()) {
      for (size_t k = 0; k < n; ++k) {
        if (r->expressions[k].id != v) continue;
        if (k == i) {
          return Status::InvalidArgument("Self referencing expression found: " + v);
        }
        uses[i].push_back(k);
      }
    }
  }
  // Iterative depth-first search: 0 unseen, 1 on the stack, 2 done.
  std::vector<int> state(n, 0);
  r->eval_order.clear();
  for (size_t root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    std::vector<std::pair<size_t, size_t>> stack{{root, 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < uses[node].size()) {
        const size_t dep = uses[node][next++];
        if (state[dep] == 1) {
          return Status::InvalidArgument("Circular reference found: " + r->expressions[node].id);
        }
        if (state[dep] == 0) {
          state[dep] = 1;
          stack.emplace_back(dep, 0);
        }
        continue;
      }
      state[node] = 2;
      r->eval_order.push_back(node);
      stack.pop_back();
    }
  }
  return Status::OK();
}

Status Validate(Timestamp now_ms, ExpRequest* r) {
  if (!r->has_time) return Status::InvalidArgument("missing time");
  Status s = ValidateTime(r->time, now_ms, &r->tz);
  if (!s.ok()) return Invalid("Invalid time", s);
  if (!r->has_metrics || r->metrics.empty()) {
    return Status::InvalidArgument("missing or empty metrics");
  }
  std::set<std::string> variables, filter_ids;
  for (const ExpMetric& m : r->metrics) {
    if (!variables.insert(m.id).second) {
      return Status::InvalidArgument("duplicated metric id: " + m.id);
    }
  }
  for (const ExpFilterSet& f : r->filters) {
    if (!filter_ids.insert(f.id).second) {
      return Status::InvalidArgument("duplicated filter id: " + f.id);
    }
  }
  for (const ExpExpression& e : r->expressions) {
    if (!variables.insert(e.id).second) {
      return Status::InvalidArgument("Duplicated variable or expression id: " + e.id);
    }
  }
  for (size_t i = 0; i < r->metrics.size(); ++i) {
    s = ValidateMetric(r->metrics[i], now_ms);
    if (!s.ok()) return Invalid("Invalid metric at index " + std::to_string(i), s);
  }
  for (size_t i = 0; i < r->filters.size(); ++i) {
    const ExpFilterSet& f = r->filters[i];
    s = !f.has_id || f.id.empty() ? Status::InvalidArgument("Missing or empty id")
                                  : ValidateExpId(f.id);
    if (!s.ok()) return Invalid("Invalid filter at index " + std::to_string(i), s);
  }
  for (size_t i = 0; i < r->expressions.size(); ++i) {
    s = ValidateExpression(&r->expressions[i]);
    if (!s.ok()) return Invalid("Invalid expression at index " + std::to_string(i), s);
  }
  if (r->has_filters) {
    for (const ExpMetric& m : r->metrics) {
      if (m.has_filter && !m.filter.empty() && filter_ids.count(m.filter) == 0) {
        return Status::InvalidArgument("unrecognized filter id " + m.filter + " in metric " + m.id);
      }
    }
  }
  for (const ExpExpression& e : r->expressions) {
    for (const std::string& v : e.program.variables()) {
      if (variables.count(v) == 0) {
        return Status::InvalidArgument("Expression [" + e.expr + "] was missing input " + v);
      }
    }
  }
  // QueryExecutor's checks.
  for (const ExpMetric& m : r->metrics) {
    if (m.has_filter && !m.filter.empty() && !r->has_filters) {
      return Status::InvalidArgument("No filter defined: " + m.filter);
    }
  }
  QuerySpec range;
  range.tz = r->tz;
  SUNDIAL_RETURN_IF_ERROR(
      ParseTimeRange(r->time.start, r->time.end, r->time.has_end, now_ms, &range));
  r->start_ms = range.start_ms;
  r->end_ms = range.end_ms;
  for (const ExpExpression& e : r->expressions) {
    if (e.program.variables().empty()) {
      return Status::InvalidArgument("The expression didn't appear to have any variables");
    }
  }
  return OrderExpressions(r);
}

}  // namespace

bool ParseFillPolicyName(std::string_view name, FillPolicy* out) {
  static constexpr std::pair<std::string_view, FillPolicy> kNames[] = {
      {"none", FillPolicy::kNone}, {"zero", FillPolicy::kZero}, {"nan", FillPolicy::kNaN},
      {"null", FillPolicy::kNull}, {"scalar", FillPolicy::kScalar}};
  for (const auto& [n, p] : kNames) {
    if (EqualsNoCase(n, name)) {
      *out = p;
      return true;
    }
  }
  return false;
}

std::string_view FillPolicyName(FillPolicy p) {
  switch (p) {
    case FillPolicy::kNone: return "none";
    case FillPolicy::kZero: return "zero";
    case FillPolicy::kNaN: return "nan";
    case FillPolicy::kNull: return "null";
    case FillPolicy::kScalar: return "scalar";
  }
  return "none";
}

Status ResolveFill(std::optional<FillPolicy> policy, double value, ExpFill* out) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  if (!policy) {
    out->policy = value == 0 ? FillPolicy::kZero
                  : std::isnan(value) ? FillPolicy::kNaN
                                      : FillPolicy::kScalar;
    out->value = value;
    return Status::OK();
  }
  out->policy = *policy;
  switch (*policy) {
    case FillPolicy::kNone:
    case FillPolicy::kNaN:
      if (value != 0 && !std::isnan(value)) {
        return Status::InvalidArgument("The value for NONE and NAN must be NaN");
      }
      out->value = kNaN;
      break;
    case FillPolicy::kZero:
      if (value != 0) return Status::InvalidArgument("The value for ZERO must be 0");
      out->value = 0;
      break;
    case FillPolicy::kNull:
      if (value != 0 && !std::isnan(value)) {
        return Status::InvalidArgument("The value for NULL must be 0");
      }
      out->value = kNaN;
      break;
    case FillPolicy::kScalar:
      out->value = value;
      break;
  }
  return Status::OK();
}

Status ValidateExpId(const std::string& id) {
  if (id.empty()) return Status::InvalidArgument("The ID cannot be null or empty");
  for (char c : id) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) {
      return Status::InvalidArgument("Invalid id (\"" + id + "\"): illegal character: " + c);
    }
  }
  if (id.size() == 1 && id[0] >= '0' && id[0] <= '9') {
    return Status::InvalidArgument("The ID cannot be an integer");
  }
  return Status::OK();
}

Status ParseExpRequest(std::string_view body, Timestamp now_ms, ExpRequest* out) {
  ExpRequest r;
  SUNDIAL_RETURN_IF_ERROR(ParseExpRequestJson(body, &r));
  SUNDIAL_RETURN_IF_ERROR(Validate(now_ms, &r));
  *out = std::move(r);
  return Status::OK();
}

}  // namespace sundial::query
