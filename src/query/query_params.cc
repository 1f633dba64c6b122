// GET /api/query?start=&end=&m=&tsuid=&... (opentsdb-compat.md §5.2).
#include <cctype>

#include "sundial/query/query_spec.h"

namespace sundial::query {
namespace {

std::string ToUpper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

bool IsHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// tsuid=<agg>:[<opt>:]...<TSUID>[,<TSUID>...]
Status ParseTsuidSubQuery(std::string_view t, SubQuery* out) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= t.size(); ++i) {
    if (i == t.size() || t[i] == ':') {
      parts.push_back(t.substr(start, i - start));
      start = i + 1;
    }
  }
  if (parts.size() < 2 || parts.size() > 5) {
    return Status::InvalidArgument("Invalid parameter tsuid=" + std::string(t) + " (" +
                                   (parts.size() < 2 ? "not enough" : "too many") +
                                   " :-separated parts)");
  }
  // Reuse the m= parser for the aggregator and the middle options by
  // substituting a placeholder metric.
  std::string m;
  for (size_t i = 0; i + 1 < parts.size(); ++i) m.append(parts[i]).push_back(':');
  m.append("x");
  SubQuery q;
  SUNDIAL_RETURN_IF_ERROR(ParseMSubQuery(m, &q));
  q.metric.clear();
  std::string_view list = parts.back();
  size_t s = 0;
  for (size_t i = 0; i <= list.size(); ++i) {
    if (i == list.size() || list[i] == ',') {
      const std::string_view one = list.substr(s, i - s);
      s = i + 1;
      if (one.empty()) continue;
      if (!IsHex(one) || one.size() % 2 != 0) {
        return Status::InvalidArgument("Invalid TSUID: " + std::string(one));
      }
      q.tsuids.push_back(ToUpper(one));
    }
  }
  if (q.tsuids.empty()) {
    return Status::InvalidArgument("Missing the metric or tsuids, provide at least one");
  }
  *out = std::move(q);
  return Status::OK();
}

// The query-string keys ParseQueryParams reads.
enum class Key : uint8_t {
  kOther, kStart, kEnd, kTz, kTimezone, kSubQuery, kMs, kArrays, kShowTsuids, kShowQuery,
  kNoAnnotations, kGlobalAnnotations, kShowStats, kShowSummary, kDelete,
};

Key ClassifyKey(std::string_view k) {
  switch (k.size()) {
    case 1: return k == "m" ? Key::kSubQuery : Key::kOther;
    case 2: return k == "ms" ? Key::kMs : k == "tz" ? Key::kTz : Key::kOther;
    case 3: return k == "end" ? Key::kEnd : Key::kOther;
    case 5: return k == "start" ? Key::kStart : k == "tsuid" ? Key::kSubQuery : Key::kOther;
    case 6:
      if (k == "delete") return Key::kDelete;
      return k == "arrays" ? Key::kArrays : k == "tsuids" ? Key::kSubQuery : Key::kOther;
    case 8: return k == "timezone" ? Key::kTimezone : Key::kOther;
    case 10:
      if (k == "show_query") return Key::kShowQuery;
      return k == "show_stats" ? Key::kShowStats : Key::kOther;
    case 11: return k == "show_tsuids" ? Key::kShowTsuids : Key::kOther;
    case 12: return k == "show_summary" ? Key::kShowSummary : Key::kOther;
    case 14: return k == "no_annotations" ? Key::kNoAnnotations : Key::kOther;
    case 18: return k == "global_annotations" ? Key::kGlobalAnnotations : Key::kOther;
    default: return Key::kOther;
  }
}

}  // namespace

Status ParseQueryParams(const ParamList& params, Timestamp now_ms, QuerySpec* out) {
  // One pass for the single-valued parameters (last wins) and the flags;
  // the sub-queries are parsed after the time range, in request order.
  const std::string* start = nullptr;
  const std::string* end = nullptr;
  const std::string* tz = nullptr;
  const std::string* timezone = nullptr;
  size_t n_queries = 0;
  QuerySpec spec;
  for (const auto& kv : params) {
    switch (ClassifyKey(kv.first)) {
      case Key::kOther: break;
      case Key::kStart: start = &kv.second; break;
      case Key::kEnd: end = &kv.second; break;
      case Key::kTz: tz = &kv.second; break;
      case Key::kTimezone: timezone = &kv.second; break;
      case Key::kSubQuery: ++n_queries; break;
      case Key::kMs: spec.ms_resolution = true; break;
      case Key::kArrays: spec.arrays = true; break;
      case Key::kShowTsuids: spec.show_tsuids = true; break;
      case Key::kShowQuery: spec.show_query = true; break;
      case Key::kNoAnnotations: spec.no_annotations = true; break;
      case Key::kGlobalAnnotations: spec.global_annotations = true; break;
      case Key::kShowStats: spec.show_stats = true; break;
      case Key::kShowSummary: spec.show_summary = true; break;
      case Key::kDelete: spec.delete_data = kv.second.empty() || kv.second == "true"; break;
    }
  }
  if (start == nullptr || start->empty()) {
    return Status::InvalidArgument("Missing parameter <code>start</code>");
  }
  if (tz == nullptr) tz = timezone;
  if (tz != nullptr) SUNDIAL_RETURN_IF_ERROR(TimeZone::Load(*tz, &spec.tz));
  SUNDIAL_RETURN_IF_ERROR(ParseTimeRange(*start, end ? std::string_view(*end) : std::string_view(),
                                         end != nullptr, now_ms, &spec));
  spec.queries.reserve(n_queries);
  for (const auto& kv : params) {
    const std::string& k = kv.first;
    const bool m = k.size() == 1 && k[0] == 'm';
    if (!m && k != "tsuid" && k != "tsuids") continue;
    SubQuery& q = spec.queries.emplace_back();
    SUNDIAL_RETURN_IF_ERROR(m ? ParseMSubQueryInto(kv.second, &q)
                              : ParseTsuidSubQuery(kv.second, &q));
  }
  if (spec.queries.empty()) return Status::InvalidArgument("Missing sub queries");
  DedupSubQueries(&spec.queries);
  *out = std::move(spec);
  return Status::OK();
}

}  // namespace sundial::query
