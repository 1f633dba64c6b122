// EvaluateExpression: join by tags, align timestamps, fill, evaluate
// (exp_eval.h).
#include "sundial/query/exp_eval.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <set>

#include "series_source.h"

namespace sundial::query {
namespace {

// UnionIterator/IntersectionIterator.flattenTags, over names instead of
// UIDs: '\0' separates the parts, '\1' starts the aggregated tags.
std::string JoinKey(const ExpSeries& s, const ExpSet& var, const ExpJoinSpec& join) {
  std::string key;
  if (s.tags.empty()) return key;
  for (const auto& [k, v] : s.tags) {
    if (join.use_query_tags &&
        !std::binary_search(var.query_tagks.begin(), var.query_tagks.end(), k)) {
      continue;
    }
    key.append(k).push_back('\0');
    key.append(v).push_back('\0');
  }
  if (join.include_agg_tags) {
    key.push_back('\1');
    for (const std::string& k : s.aggregated_tags) key.append(k).push_back('\0');
  }
  return key;
}

// Joined rows: key -> the series index of each variable (-1: none).
using Rows = std::map<std::string, std::vector<int>>;

Status Join(const std::vector<const ExpSet*>& vars, const ExpJoinSpec& join,
            const std::string& text, Rows* rows) {
  const size_t n = vars.size();
  bool any = false;
  for (size_t v = 0; v < n; ++v) {
    const ExpSet& set = *vars[v];
    any = any || !set.series.empty();
    std::set<std::string> keys;
    for (size_t i = 0; i < set.series.size(); ++i) {
      std::string key = JoinKey(set.series[i], set, join);
      auto it = rows->find(key);
      if (it == rows->end()) {
        if (join.intersection && v > 0) continue;
        it = rows->emplace(key, std::vector<int>(n, -1)).first;
      }
      it->second[v] = static_cast<int>(i);
      keys.insert(std::move(key));
    }
    if (!join.intersection || v == 0) continue;
    for (auto it = rows->begin(); it != rows->end();) {
      it = keys.count(it->first) ? std::next(it) : rows->erase(it);
    }
  }
  if (join.intersection && any && rows->empty()) {
    return Status::InvalidArgument("No intersections found: expression [" + text + "]");
  }
  return Status::OK();
}

// The header of a joined row's output series.
void MergeHeader(const std::vector<const ExpSet*>& vars, const std::vector<int>& row,
                 ExpSeries* out) {
  std::set<std::string> agg, metrics;
  bool have_tags = false;
  for (size_t v = 0; v < vars.size(); ++v) {
    if (row[v] < 0) continue;
    const ExpSeries& s = vars[v]->series[static_cast<size_t>(row[v])];
    if (!have_tags) {
      out->tags = s.tags;
      have_tags = true;
    }
    agg.insert(s.aggregated_tags.begin(), s.aggregated_tags.end());
    metrics.insert(s.metrics.begin(), s.metrics.end());
  }
  out->aggregated_tags.assign(agg.begin(), agg.end());
  out->metrics.assign(metrics.begin(), metrics.end());
}

Status CheckDeadline(const ExpEvalLimits& limits) {
  if (limits.deadline == std::chrono::steady_clock::time_point() ||
      std::chrono::steady_clock::now() <= limits.deadline) {
    return Status::OK();
  }
  return Status::DeadlineExceeded("Query timed out: it ran longer than the limit of " +
                                  std::to_string(limits.deadline_ms) + " ms (query.deadline)");
}

}  // namespace

void MergeTimestamps(const std::vector<Timestamp>& ts, std::vector<Timestamp>* times) {
  if (ts == *times) return;
  std::vector<Timestamp> merged;
  merged.reserve(std::max(ts.size(), times->size()));
  std::set_union(times->begin(), times->end(), ts.begin(), ts.end(), std::back_inserter(merged));
  times->swap(merged);
}

uint64_t ExpSetBytes(const ExpSet& s) {
  uint64_t bytes = sizeof(ExpSet);
  for (const ExpSeries& e : s.series) {
    bytes += sizeof(ExpSeries) + e.ts.size() * sizeof(Timestamp) + e.values.size() * sizeof(double);
    for (const auto& [k, v] : e.tags) bytes += k.size() + v.size() + 64;
    for (const std::string& a : e.aggregated_tags) bytes += a.size() + 32;
    for (const std::string& m : e.metrics) bytes += m.size() + 32;
  }
  return bytes;
}

Status EvaluateExpression(const ExprProgram& program, const std::vector<const ExpSet*>& vars,
                          const ExpJoinSpec& join, double fill, const ExpEvalLimits& limits,
                          ExpSet* out) {
  out->series.clear();
  out->fill = fill;
  out->query_tagks.clear();
  Rows rows;
  SUNDIAL_RETURN_IF_ERROR(Join(vars, join, program.text(), &rows));
  // The output timestamps: every timestamp of a joined series.
  std::vector<Timestamp> times;
  for (const auto& [key, row] : rows) {
    for (size_t v = 0; v < vars.size(); ++v) {
      if (row[v] < 0) continue;
      MergeTimestamps(vars[v]->series[static_cast<size_t>(row[v])].ts, &times);
    }
    SUNDIAL_RETURN_IF_ERROR(CheckDeadline(limits));
  }
  const uint64_t points = static_cast<uint64_t>(rows.size()) * times.size();
  if (limits.max_output_points != 0 && points > limits.max_output_points) {
    return Status::ResourceExhausted(OutputPointsMessage(limits.max_output_points));
  }
  if (limits.max_memory != 0 && points > limits.max_memory / (sizeof(Timestamp) + sizeof(double))) {
    return Status::ResourceExhausted(MemoryLimitMessage(limits.max_memory));
  }
  const size_t n = vars.size();
  std::vector<double> values(n);
  std::vector<size_t> cursor(n);
  uint64_t work = 0;
  out->series.reserve(rows.size());
  for (const auto& [key, row] : rows) {
    ExpSeries s;
    MergeHeader(vars, row, &s);
    s.ts = times;
    s.values.reserve(times.size());
    std::fill(cursor.begin(), cursor.end(), 0);
    for (const Timestamp t : times) {
      for (size_t v = 0; v < n; ++v) {
        if (row[v] < 0) {  // union: the variable has no such series
          values[v] = 0;
          continue;
        }
        const ExpSeries& in = vars[v]->series[static_cast<size_t>(row[v])];
        size_t& c = cursor[v];
        while (c < in.ts.size() && in.ts[c] < t) ++c;
        const bool here = c < in.ts.size() && in.ts[c] == t && !std::isnan(in.values[c]);
        values[v] = here ? in.values[c] : vars[v]->fill;
      }
      s.values.push_back(program.Evaluate(values.data()));
      if ((++work & 4095) == 0) SUNDIAL_RETURN_IF_ERROR(CheckDeadline(limits));
    }
    out->series.push_back(std::move(s));
  }
  return Status::OK();
}

}  // namespace sundial::query
