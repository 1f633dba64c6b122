// The /api/query/gexp functions (gexp_eval.h).
#include "sundial/query/gexp_eval.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/query/exp_expr.h"

namespace sundial::query {
namespace {

Status FnError(const GexpNode& call, const std::string& what) {
  return Status::InvalidArgument(call.name + ": " + what);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Java's Integer.parseInt of digits: at most 9 digits keep it in range.
bool ParseCount(std::string_view s, int64_t* out) {
  if (!AllDigits(s) || s.size() > 9) return false;
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  *out = v;
  return true;
}

// "'<digits><unit>'" with unit's length in ms from units; false when it
// does not have that shape or the unit is unknown.
struct Unit {
  std::string_view name;
  int64_t ms;
};
template <size_t N>
bool ParseQuotedPeriod(std::string_view p, const Unit (&units)[N], int64_t* ms) {
  if (p.size() < 3 || p.front() != '\'' || p.back() != '\'') return false;
  p = p.substr(1, p.size() - 2);
  size_t digits = 0;
  while (digits < p.size() && p[digits] >= '0' && p[digits] <= '9') ++digits;
  int64_t n = 0;
  if (!ParseCount(p.substr(0, digits), &n)) return false;
  std::string_view unit = p.substr(digits);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  while (!unit.empty() && unit.back() == ' ') unit.remove_suffix(1);
  for (const Unit& u : units) {
    if (u.name == unit) {
      *ms = n * u.ms;  // n < 1e9 and u.ms <= 6.1e8: no overflow
      return true;
    }
  }
  return false;
}

constexpr int64_t kSec = 1000, kMin = 60 * kSec, kHour = 60 * kMin, kDay = 24 * kHour;
// MovingAverage.parseParam's units and TimeShift.parseParam's.
constexpr Unit kWindowUnits[] = {{"day", kDay},   {"d", kDay},   {"hr", kHour},
                                 {"hour", kHour}, {"h", kHour},  {"min", kMin},
                                 {"m", kMin},     {"sec", kSec}, {"s", kSec}};
constexpr Unit kShiftUnits[] = {{"sec", kSec},  {"min", kMin},      {"hr", kHour},
                                {"day", kDay},  {"days", kDay},     {"week", 7 * kDay},
                                {"weeks", 7 * kDay}};

GexpSet Flatten(std::vector<GexpSet>* inputs) {
  GexpSet all;
  for (GexpSet& set : *inputs) {
    for (GexpSeries& s : set) all.push_back(std::move(s));
  }
  return all;
}

Status Scale(const GexpNode& call, std::vector<GexpSet>* inputs, GexpSet* out) {
  if (call.params.empty()) return FnError(call, "missing the scaling factor");
  const std::string& p = call.params[0];
  char* end = nullptr;
  const double f = std::strtod(p.c_str(), &end);
  if (p.empty() || end != p.c_str() + p.size() || !std::isfinite(f)) {
    return FnError(call, "unparseable scaling factor: " + p);
  }
  *out = Flatten(inputs);
  for (GexpSeries& s : *out) {
    for (double& v : s.values) v *= f;
  }
  return Status::OK();
}

Status Alias(const GexpNode& call, std::vector<GexpSet>* inputs, GexpSet* out) {
  std::string tmpl;
  for (size_t i = 0; i < call.params.size(); ++i) {
    std::string_view p = call.params[i];
    if (p.size() >= 2 && p.front() == '\'' && p.back() == '\'') p = p.substr(1, p.size() - 2);
    if (i > 0) tmpl += ',';
    tmpl += p;
  }
  if (call.params.empty()) tmpl = "__default";
  *out = std::move((*inputs)[0]);
  for (GexpSeries& s : *out) {
    std::string name = tmpl;
    for (const auto& [k, v] : s.tags) {
      const std::string key = "@" + k;
      size_t at = name.find(key);
      while (at != std::string::npos) {
        name.replace(at, key.size(), v);
        at = name.find(key, at + v.size());
      }
    }
    s.metric = std::move(name);
    s.tags.clear();
    s.aggregated_tags.clear();
  }
  return Status::OK();
}

// MovingAverageAggregator's windows, in one pass with a running sum (its
// list walk is O(window) a point). Count windows: the mean of the last
// `window` non-NaN values up to this point, 0 while fewer were seen. Time
// windows: the mean of the non-NaN values newer than t - window, 0 unless
// a point at least `window` older exists.
void MovingAverage(int64_t window, bool is_time, GexpSeries* s) {
  const size_t n = s->ts.size();
  std::vector<double> in = s->values;
  double sum = 0;
  int64_t count = 0;
  if (!is_time) {
    std::deque<double> last;  // the non-NaN values in the window
    for (size_t i = 0; i < n; ++i) {
      if (!std::isnan(in[i])) {
        last.push_back(in[i]);
        sum += in[i];
        ++count;
        if (count > window) {
          sum -= last.front();
          last.pop_front();
          --count;
        }
      }
      s->values[i] = count >= window ? sum / static_cast<double>(count) : 0.0;
    }
    return;
  }
  size_t left = 0;  // the oldest point newer than t - window
  for (size_t i = 0; i < n; ++i) {
    if (!std::isnan(in[i])) {
      sum += in[i];
      ++count;
    }
    bool met = false;
    while (left < i && s->ts[i] - s->ts[left] >= window) {
      met = true;
      if (!std::isnan(in[left])) {
        sum -= in[left];
        --count;
      }
      ++left;
    }
    // A point at least `window` older exists iff one was ever dropped.
    met = met || left > 0;
    s->values[i] = (met && count > 0) ? sum / static_cast<double>(count) : 0.0;
  }
}

Status MovingAverageCall(const GexpNode& call, std::vector<GexpSet>* inputs, GexpSet* out) {
  if (call.params.empty()) return FnError(call, "missing moving average window size");
  const std::string& p = call.params[0];
  int64_t window = 0;
  bool is_time = false;
  if (AllDigits(p)) {
    if (!ParseCount(p, &window)) return FnError(call, "invalid parameter, must be an integer");
  } else if (p.size() >= 2 && p.front() == '\'' && p.back() == '\'') {
    if (!ParseQuotedPeriod(p, kWindowUnits, &window)) {
      return FnError(call, "invalid moving window parameter: " + p);
    }
    is_time = true;
  } else {
    return FnError(call, "unparseable window size: " + p);
  }
  if (window <= 0) {
    return FnError(call, "moving average window must be an integer greater than zero");
  }
  *out = Flatten(inputs);
  for (GexpSeries& s : *out) MovingAverage(window, is_time, &s);
  return Status::OK();
}

// highestCurrent / highestMax: the top n series by a per-series figure.
Status Highest(const GexpNode& call, bool by_max, Timestamp start_ms, Timestamp end_ms,
               std::vector<GexpSet>* inputs, GexpSet* out) {
  if (call.params.empty()) return FnError(call, "missing top n value (number of series to return)");
  int64_t n = 0;
  if (!ParseCount(call.params[0], &n)) {
    return FnError(call, "unparseable top n value: " + call.params[0]);
  }
  if (n < 1) return FnError(call, "top n value must be greater than zero: " + call.params[0]);
  GexpSet all = Flatten(inputs);
  std::vector<std::pair<double, size_t>> rank;
  for (size_t i = 0; i < all.size(); ++i) {
    double figure = -std::numeric_limits<double>::infinity();
    const GexpSeries& s = all[i];
    for (size_t j = 0; j < s.ts.size(); ++j) {
      if (s.ts[j] < start_ms || s.ts[j] > end_ms || std::isnan(s.values[j])) continue;
      figure = by_max ? std::max(figure, s.values[j]) : s.values[j];
    }
    rank.emplace_back(figure, i);
  }
  std::stable_sort(rank.begin(), rank.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const size_t keep = std::min(rank.size(), static_cast<size_t>(n));
  out->clear();
  for (size_t i = 0; i < keep; ++i) out->push_back(std::move(all[rank[i].second]));
  return Status::OK();
}

// sumSeries & co.: OpenTSDB builds "a + b + ..." and runs it through the
// /api/query/exp machinery with a union join.
Status Combine(const GexpNode& call, char op, std::vector<GexpSet>* inputs,
               const ExpEvalLimits& limits, GexpSet* out) {
  if (inputs->size() < 2 || inputs->size() > 26) {
    return FnError(call, "must have 2 to 26 series, got " + std::to_string(inputs->size()) +
                             " instead");
  }
  std::string text;
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (i > 0) text += std::string(" ") + op + " ";
    text += static_cast<char>('a' + i);
  }
  ExprProgram program;
  SUNDIAL_RETURN_IF_ERROR(ExprProgram::Parse(text, &program));
  std::vector<ExpSet> sets(inputs->size());
  std::vector<const ExpSet*> vars;
  for (size_t i = 0; i < inputs->size(); ++i) {
    for (GexpSeries& g : (*inputs)[i]) {
      ExpSeries& s = sets[i].series.emplace_back();
      s.tags = std::move(g.tags);
      s.aggregated_tags = std::move(g.aggregated_tags);
      s.metrics.push_back(std::move(g.metric));
      s.ts = std::move(g.ts);
      s.values = std::move(g.values);
    }
    sets[i].fill = 0;
    vars.push_back(&sets[i]);
  }
  ExpJoinSpec join;
  join.include_agg_tags = false;
  ExpSet result;
  SUNDIAL_RETURN_IF_ERROR(EvaluateExpression(
      program, vars, join, std::numeric_limits<double>::quiet_NaN(), limits, &result));
  out->clear();
  for (ExpSeries& s : result.series) {
    GexpSeries& g = out->emplace_back();
    if (!s.metrics.empty()) g.metric = std::move(s.metrics[0]);
    g.tags = std::move(s.tags);
    g.aggregated_tags = std::move(s.aggregated_tags);
    g.ts = std::move(s.ts);
    g.values = std::move(s.values);
  }
  return Status::OK();
}

}  // namespace

Status GexpTimeShift(const GexpNode& call, int64_t* shift_ms) {
  if (call.params.empty()) return FnError(call, "need amount of timeshift to perform timeshift");
  const std::string& p = call.params[0];
  if (!ParseQuotedPeriod(p, kShiftUnits, shift_ms)) {
    return FnError(call, "invalid timeshift parameter: " + p + " (e.g. '10min')");
  }
  if (*shift_ms <= 0) return FnError(call, "timeshift must be greater than zero");
  return Status::OK();
}

Status EvaluateGexpCall(const GexpNode& call, std::vector<GexpSet> inputs, Timestamp start_ms,
                        Timestamp end_ms, const ExpEvalLimits& limits, GexpSet* out) {
  if (inputs.empty()) return FnError(call, "needs a metric query or a function as its input");
  switch (call.function) {
    case GexpFunction::kAbsolute:
      *out = Flatten(&inputs);
      for (GexpSeries& s : *out) {
        for (double& v : s.values) v = std::fabs(v);
      }
      return Status::OK();
    case GexpFunction::kScale: return Scale(call, &inputs, out);
    case GexpFunction::kAlias: return Alias(call, &inputs, out);
    case GexpFunction::kMovingAverage: return MovingAverageCall(call, &inputs, out);
    case GexpFunction::kHighestCurrent:
      return Highest(call, false, start_ms, end_ms, &inputs, out);
    case GexpFunction::kHighestMax: return Highest(call, true, start_ms, end_ms, &inputs, out);
    case GexpFunction::kTimeShift: {
      int64_t shift = 0;
      SUNDIAL_RETURN_IF_ERROR(GexpTimeShift(call, &shift));
      *out = std::move(inputs[0]);
      for (GexpSeries& s : *out) {
        for (Timestamp& t : s.ts) t += shift;
      }
      return Status::OK();
    }
    case GexpFunction::kSumSeries: return Combine(call, '+', &inputs, limits, out);
    case GexpFunction::kDiffSeries: return Combine(call, '-', &inputs, limits, out);
    case GexpFunction::kMultiplySeries: return Combine(call, '*', &inputs, limits, out);
    case GexpFunction::kDivideSeries: return Combine(call, '/', &inputs, limits, out);
  }
  return FnError(call, "unknown function");
}

}  // namespace sundial::query
