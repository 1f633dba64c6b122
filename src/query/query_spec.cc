// Parsing shared by the GET and POST forms: downsample specs, m= sub-queries,
// metric{tags}{filters}, time ranges, de-duplication.
#include "sundial/query/query_spec.h"

#include <unordered_set>

#include "sundial/common/ascii.h"

namespace sundial::query {
namespace {

bool StartsWithLower(std::string_view s, std::string_view lower) {
  return s.size() >= lower.size() && EqualsNoCase(s.substr(0, lower.size()), lower);
}

// True if s contains `lower` (lower-case) ignoring the case of s.
bool ContainsLower(std::string_view s, std::string_view lower) {
  for (size_t i = 0; i + lower.size() <= s.size(); ++i) {
    if (EqualsNoCase(s.substr(i, lower.size()), lower)) return true;
  }
  return false;
}

// OpenTSDB Tags.splitString: every separator splits, empties kept.
std::vector<std::string_view> SplitAll(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// SplitAll into a fixed array: stores the first `max` parts in out[] and
// returns the number of parts there are.
size_t SplitInto(std::string_view s, char sep, std::string_view* out, size_t max) {
  size_t n = 0;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      if (n < max) out[n] = s.substr(start, i - start);
      ++n;
      start = i + 1;
    }
  }
  return n;
}

// Java String.split into a fixed array: SplitInto with trailing empty
// parts dropped.
size_t JavaSplitInto(std::string_view s, char sep, std::string_view* out, size_t max) {
  while (!s.empty() && s.back() == sep) s.remove_suffix(1);
  if (s.empty()) return 0;
  return SplitInto(s, sep, out, max);
}

bool ParseLong(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  uint64_t v = 0;
  if (s.size() <= 18) {  // below 10^18: cannot overflow
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      v = v * 10 + static_cast<uint64_t>(c - '0');
    }
    *out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
  }
  const uint64_t limit = neg ? (uint64_t{1} << 63) : (uint64_t{1} << 63) - 1;
  const uint64_t limit_tens = limit / 10;
  const uint64_t limit_units = limit % 10;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    // v * 10 + d <= limit, without overflowing.
    if (v > limit_tens || (v == limit_tens && d > limit_units)) return false;
    v = v * 10 + d;
  }
  *out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
  return true;
}

// Tags.parse of one "k=v" entry: exactly one '=', both sides non-empty.
Status ParseTag(std::string_view tag, std::string_view* k, std::string_view* v) {
  const size_t eq = tag.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == tag.size() ||
      tag.find('=', eq + 1) != std::string_view::npos) {
    return Status::InvalidArgument("invalid tag: " + std::string(tag));
  }
  *k = tag.substr(0, eq);
  *v = tag.substr(eq + 1);
  return Status::OK();
}

// Adds f unless a filter with the same Key() exists; a group-by duplicate
// marks the existing one group-by (TagVFilter.mapToFilters).
void AddFilter(TagFilter&& f, std::vector<TagFilter>* filters) {
  if (f.group_by()) {
    for (TagFilter& e : *filters) {
      if (e.SameKey(f)) {
        e.set_group_by(true);
        return;
      }
    }
  }
  filters->push_back(std::move(f));
}

// Parses the comma list inside one pair of braces.
Status ParseBraceList(std::string_view list, bool group_by, bool stop_on_empty,
                      std::vector<TagFilter>* filters) {
  size_t entries = 1;
  for (char c : list) entries += c == ',';
  filters->reserve(filters->size() + entries);
  size_t start = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i != list.size() && list[i] != ',') continue;
    const std::string_view entry = list.substr(start, i - start);
    start = i + 1;
    if (entry.empty() && stop_on_empty) break;
    std::string_view k, v;
    Status s = ParseTag(entry, &k, &v);
    TagFilter f;
    if (s.ok()) s = TagFilter::FromShorthand(k, v, group_by, &f);
    if (!s.ok()) {
      return Status::InvalidArgument(std::string(group_by ? "When parsing tag '" : "When parsing filter '") +
                                     std::string(entry) + "': " + s.message());
    }
    AddFilter(std::move(f), filters);
  }
  return Status::OK();
}

Status ParseRateOptions(std::string_view spec, RateOptions* out) {
  *out = RateOptions();
  if (spec.size() == 4) return Status::OK();
  if (spec.size() < 6 || spec[4] != '{' || spec.back() != '}') {
    return Status::InvalidArgument("Invalid rate options specification: " + std::string(spec));
  }
  const std::vector<std::string_view> parts = SplitAll(spec.substr(5, spec.size() - 6), ',');
  if (parts.size() > 3) {
    return Status::InvalidArgument(
        "Incorrect number of values in rate options specification, must be counter[,counter max "
        "value,reset value], recieved: " + std::to_string(parts.size()) + " parts");
  }
  const std::string_view c = parts[0];
  out->counter = c.size() >= 7 && c.substr(c.size() - 7) == "counter";
  out->drop_resets = c == "dropcounter";
  if (parts.size() >= 2 && !parts[1].empty() && !ParseLong(parts[1], &out->counter_max)) {
    return Status::InvalidArgument("Max value of counter was not a number, received '" +
                                   std::string(parts[1]) + "'");
  }
  if (parts.size() >= 3 && !parts[2].empty() && !ParseLong(parts[2], &out->reset_value)) {
    return Status::InvalidArgument("Reset value of counter was not a number, received '" +
                                   std::string(parts[2]) + "'");
  }
  return Status::OK();
}

}  // namespace

void SplitErrorDetails(const std::string& msg, std::string* message, std::string* details) {
  const size_t sep = msg.find(kDetailsSeparator);
  if (sep == std::string::npos) {
    *message = msg;
    details->clear();
  } else {
    *message = msg.substr(0, sep);
    *details = msg.substr(sep + 1);
  }
}

Status ParseDownsample(std::string_view s, bool use_calendar, DownsampleSpec* out) {
  DownsampleSpec d;
  d.text = std::string(s);
  std::string_view parts[3];
  const size_t n_parts = JavaSplitInto(s, '-', parts, 3);
  const auto quoted = [s] { return "Invalid downsampling specifier '" + std::string(s) + "': "; };
  if (n_parts < 2) {
    return Status::InvalidArgument(quoted() + "must provide at least interval and function");
  }
  if (n_parts > 3) {
    return Status::InvalidArgument(quoted() +
                                   "must consist of interval, function, and optional fill policy");
  }
  std::string_view iv = parts[0];
  if (ContainsLower(iv, "all")) {
    d.all = true;
  } else {
    if (!iv.empty() && iv.back() == 'c') {
      iv.remove_suffix(1);
      d.calendar = true;
    }
    SUNDIAL_RETURN_IF_ERROR(ParseDuration(iv, &d.interval_ms));
    // Bucket arithmetic adds intervals to timestamps; 1000 years keeps it
    // far from overflow (and covers any stored time range anyway).
    constexpr int64_t kMaxIntervalMs = int64_t{1000} * 366 * 86400 * 1000;
    if (d.interval_ms > kMaxIntervalMs) {
      return Status::InvalidArgument(quoted() + "interval longer than 1000 years");
    }
    if (d.calendar || use_calendar) {
      d.calendar = true;
      size_t digits = 0;
      while (digits < iv.size() && iv[digits] >= '0' && iv[digits] <= '9') ++digits;
      int64_t count = 0;
      if (!ParseLong(iv.substr(0, digits), &count) || count <= 0 || count > 1000000 ||
          !ParseCalendarUnit(iv.substr(digits), &d.unit)) {
        return Status::InvalidArgument(quoted() + "invalid calendar interval");
      }
      d.count = static_cast<int>(count);
    }
  }
  if (parts[1] == "none") {
    return Status::InvalidArgument("cannot use the NONE aggregator for downsampling");
  }
  d.fn = FindAggregator(parts[1]);
  if (d.fn == nullptr) {
    return Status::InvalidArgument("No such downsampling function: " + std::string(parts[1]));
  }
  if (n_parts == 3) {
    const std::string_view p = parts[2];
    if (EqualsNoCase(p, "none")) d.fill = FillPolicy::kNone;
    else if (EqualsNoCase(p, "nan")) d.fill = FillPolicy::kNaN;
    else if (EqualsNoCase(p, "null")) d.fill = FillPolicy::kNull;
    else if (EqualsNoCase(p, "zero")) d.fill = FillPolicy::kZero;
    else if (EqualsNoCase(p, "scalar")) d.fill = FillPolicy::kScalar;
    else return Status::InvalidArgument("Unrecognized fill policy: " + AsciiLower(p));
  }
  d.enabled = true;
  *out = std::move(d);
  return Status::OK();
}

Status ParseMetricAndFilters(std::string_view s, std::string* metric,
                             std::vector<TagFilter>* filters) {
  if (s.empty()) return Status::InvalidArgument("Metric cannot be null or empty");
  const size_t curly = s.find('{');
  if (curly == std::string_view::npos) {
    metric->assign(s);
    return Status::OK();
  }
  const size_t len = s.size();
  if (s.back() != '}') {
    return Status::InvalidArgument("Missing '}' at the end of: " + std::string(s));
  }
  metric->assign(s.substr(0, curly));
  if (curly == len - 2) return Status::OK();
  const size_t close = s.find('}');
  if (close != len - 1) {
    const size_t fb = s.rfind('{');
    if (fb <= close) return Status::InvalidArgument("Missing '{' in: " + std::string(s));
    SUNDIAL_RETURN_IF_ERROR(ParseBraceList(s.substr(fb + 1, len - fb - 2), false, true, filters));
  }
  return ParseBraceList(s.substr(curly + 1, close - curly - 1), true, close != len - 1, filters);
}

Status ParseMSubQueryInto(std::string_view m, SubQuery* q) {
  std::string_view parts[5];
  const size_t n_parts = SplitInto(m, ':', parts, 5);
  if (n_parts < 2 || n_parts > 5) {
    return Status::InvalidArgument("Invalid parameter m=" + std::string(m) + " (" +
                                   (n_parts < 2 ? "not enough" : "too many") +
                                   " :-separated parts)");
  }
  if (parts[0].empty()) return Status::InvalidArgument("Missing the aggregation function");
  q->aggregator = FindAggregator(parts[0]);
  if (q->aggregator == nullptr) {
    return Status::InvalidArgument("No such aggregation function: " + std::string(parts[0]));
  }
  SUNDIAL_RETURN_IF_ERROR(ParseMetricAndFilters(parts[n_parts - 1], &q->metric, &q->filters));
  if (q->metric.empty()) {
    return Status::InvalidArgument("Missing the metric or tsuids, provide at least one");
  }
  for (size_t x = 1; x + 1 < n_parts; ++x) {
    const std::string_view p = parts[x];
    if (p.empty()) continue;
    if (StartsWithLower(p, "rate")) {
      q->rate = true;
      if (p.find('{') != std::string_view::npos) {
        q->has_rate_options = true;
        SUNDIAL_RETURN_IF_ERROR(ParseRateOptions(p, &q->rate_options));
      }
    } else if (p[0] >= '0' && p[0] <= '9') {
      SUNDIAL_RETURN_IF_ERROR(ParseDownsample(p, false, &q->downsample));
    } else if (StartsWithLower(p, "explicit_tags")) {
      q->explicit_tags = true;
    }
    // pre-agg, rollup_*, percentiles[...], show-histogram-buckets: ignored.
  }
  return Status::OK();
}

Status ParseMSubQuery(std::string_view m, SubQuery* out) {
  SubQuery q;
  SUNDIAL_RETURN_IF_ERROR(ParseMSubQueryInto(m, &q));
  *out = std::move(q);
  return Status::OK();
}

Status ParseTimeRange(std::string_view start, std::string_view end, bool has_end,
                      Timestamp now_ms, QuerySpec* spec) {
  SUNDIAL_RETURN_IF_ERROR(ParseDateTime(start, now_ms, spec->tz, &spec->start_ms));
  if (has_end && !end.empty()) {
    SUNDIAL_RETURN_IF_ERROR(ParseDateTime(end, now_ms, spec->tz, &spec->end_ms));
  } else {
    spec->end_ms = now_ms;
  }
  if (spec->end_ms < spec->start_ms) {
    return Status::InvalidArgument("End time [" + std::to_string(spec->end_ms) +
                                   "] must be greater than or equal to the start time [" +
                                   std::to_string(spec->start_ms) + "]");
  }
  return Status::OK();
}

std::string SubQuery::Key() const {
  std::string k = std::string(aggregator ? aggregator->name : "") + '\x1e' + metric + '\x1e';
  for (const std::string& t : tsuids) k += t + ",";
  k += '\x1e' + downsample.text + '\x1e' + (rate ? "r" : "") + (explicit_tags ? "e" : "");
  if (has_rate_options) {
    k += std::to_string(rate_options.counter) + std::to_string(rate_options.counter_max) + "," +
         std::to_string(rate_options.reset_value) + std::to_string(rate_options.drop_resets);
  }
  for (const TagFilter& f : filters) k += '\x1e' + f.Key() + (f.group_by() ? "g" : "");
  return k;
}

void DedupSubQueries(std::vector<SubQuery>* queries) {
  if (queries->size() == 1) {  // the usual case: nothing to compare
    queries->front().index = 0;
    return;
  }
  std::unordered_set<std::string> seen;
  std::vector<SubQuery> out;
  for (SubQuery& q : *queries) {
    if (seen.insert(q.Key()).second) out.push_back(std::move(q));
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].index = static_cast<int>(i);
  *queries = std::move(out);
}

const std::string* FindParam(const ParamList& params, std::string_view key) {
  const std::string* found = nullptr;
  for (const auto& kv : params) {
    if (kv.first == key) found = &kv.second;
  }
  return found;
}

bool HasParam(const ParamList& params, std::string_view key) {
  return FindParam(params, key) != nullptr;
}

}  // namespace sundial::query
