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

}  // namespace

Status ParseQueryParams(const ParamList& params, Timestamp now_ms, QuerySpec* out) {
  QuerySpec spec;
  const std::string* start = FindParam(params, "start");
  if (start == nullptr || start->empty()) {
    return Status::InvalidArgument("Missing parameter <code>start</code>");
  }
  const std::string* tz = FindParam(params, "tz");
  if (tz == nullptr) tz = FindParam(params, "timezone");
  if (tz != nullptr) SUNDIAL_RETURN_IF_ERROR(TimeZone::Load(*tz, &spec.tz));
  const std::string* end = FindParam(params, "end");
  SUNDIAL_RETURN_IF_ERROR(
      ParseTimeRange(*start, end ? *end : std::string(), end != nullptr, now_ms, &spec));
  spec.ms_resolution = HasParam(params, "ms");
  spec.arrays = HasParam(params, "arrays");
  spec.show_tsuids = HasParam(params, "show_tsuids");
  spec.show_query = HasParam(params, "show_query");
  spec.no_annotations = HasParam(params, "no_annotations");
  spec.global_annotations = HasParam(params, "global_annotations");
  spec.show_stats = HasParam(params, "show_stats");
  spec.show_summary = HasParam(params, "show_summary");
  for (const auto& kv : params) {
    SubQuery q;
    if (kv.first == "m") {
      SUNDIAL_RETURN_IF_ERROR(ParseMSubQuery(kv.second, &q));
    } else if (kv.first == "tsuid" || kv.first == "tsuids") {
      SUNDIAL_RETURN_IF_ERROR(ParseTsuidSubQuery(kv.second, &q));
    } else {
      continue;
    }
    spec.queries.push_back(std::move(q));
  }
  if (spec.queries.empty()) return Status::InvalidArgument("Missing sub queries");
  DedupSubQueries(&spec.queries);
  *out = std::move(spec);
  return Status::OK();
}

}  // namespace sundial::query
