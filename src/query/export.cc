#include "sundial/query/export.h"

#include <algorithm>
#include <memory>

#include "series_match.h"
#include "sundial/common/json_escape.h"
#include "sundial/query/json_format.h"

namespace sundial::query {

namespace {

using storage::NameKind;
using storage::SeriesKeyRef;

// Whole seconds as seconds, anything else as milliseconds (the put rule).
void AppendPutTimestamp(Timestamp t, std::string* out) {
  AppendInt(t % 1000 == 0 ? t / 1000 : t, out);
}

// A value as text: integers as integers, floats in Java's shortest
// round-trip form ("1.5", "100.0", "1.0E-4"); non-finite floats as NaN,
// Infinity or -Infinity (quoted in JSON).
void AppendValue(const Value& v, bool json, std::string* out) {
  if (v.is_int()) return AppendInt(v.int_value(), out);
  if (json) return AppendJavaDouble(v.float_value(), out);
  out->append(JavaDoubleToString(v.float_value()));
}

// A CSV field, quoted when it holds a separator, a quote or a line break.
void AppendCsvField(std::string_view s, std::string* out) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(s);
    return;
  }
  out->push_back('"');
  for (char c : s) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

// The text before and after "<ts> <value>" on every line of a series.
void SeriesAffixes(ExportFormat format, const SeriesKeyRef& key, std::string* prefix,
                   std::string* suffix) {
  prefix->clear();
  suffix->clear();
  switch (format) {
    case ExportFormat::kPut:
      prefix->append("put ").append(key.metric).push_back(' ');
      for (const auto& kv : key.tags) {
        suffix->push_back(' ');
        suffix->append(kv.first).append("=").append(kv.second);
      }
      suffix->push_back('\n');
      break;
    case ExportFormat::kJson:
      prefix->append("{\"metric\":");
      AppendJsonString(key.metric, prefix);
      prefix->append(",\"tags\":{");
      for (size_t i = 0; i < key.tags.size(); ++i) {
        if (i > 0) prefix->push_back(',');
        AppendJsonString(key.tags[i].first, prefix);
        prefix->push_back(':');
        AppendJsonString(key.tags[i].second, prefix);
      }
      prefix->append("},\"timestamp\":");
      suffix->append("}\n");
      break;
    case ExportFormat::kCsv: {
      AppendCsvField(key.metric, prefix);
      prefix->push_back(',');
      std::string tags;
      for (size_t i = 0; i < key.tags.size(); ++i) {
        if (i > 0) tags.push_back(';');
        tags.append(key.tags[i].first).append("=").append(key.tags[i].second);
      }
      suffix->push_back(',');
      AppendCsvField(tags, suffix);
      suffix->push_back('\n');
      break;
    }
  }
}

Status CheckRegexLengths(const QueryLimits& limits, const SubQuery& q) {
  if (limits.max_regex_length == 0) return Status::OK();
  for (const TagFilter& f : q.filters) {
    if (f.type() == FilterType::kRegexp && f.filter().size() > limits.max_regex_length) {
      return Status::InvalidArgument("regexp filter longer than " +
                                     std::to_string(limits.max_regex_length) +
                                     " bytes (query.max_regex_length)");
    }
  }
  return Status::OK();
}

// Every selected series id, ascending, each once.
Status SelectExportSeries(storage::Storage* st, const QueryLimits& limits,
                          const ExportRequest& req, std::vector<SeriesId>* ids) {
  const auto over = [&] {
    return limits.max_series != 0 && ids->size() > limits.max_series;
  };
  const auto too_many = [&] {
    return Status::ResourceExhausted(
        "Sorry, this export selects more than " + std::to_string(limits.max_series) +
        " time series (query.max_series); split it by metric or by tags");
  };
  for (const SubQuery& q : req.queries) {
    SUNDIAL_RETURN_IF_ERROR(CheckRegexLengths(limits, q));
    uint32_t uid = 0;
    if (!st->LookupUid(NameKind::kMetric, q.metric, &uid).ok()) {
      const std::string msg = "No such name for 'metrics': '" + q.metric + "'";
      return Status::InvalidArgument(msg + kDetailsSeparator + msg);
    }
    for (SeriesId id : st->SeriesOfMetric(q.metric)) {
      SeriesKeyRef key;
      if (st->GetSeriesKeyRef(id, &key).ok() && PassesFilters(q, key)) ids->push_back(id);
    }
    if (over()) return too_many();
  }
  if (!req.metric_patterns.empty()) {
    for (const std::string& name : st->SuggestNames(NameKind::kMetric, "", 0)) {
      const bool match = std::any_of(req.metric_patterns.begin(), req.metric_patterns.end(),
                                     [&](const std::string& g) { return GlobMatch(g, name); });
      if (!match) continue;
      const std::vector<SeriesId> of = st->SeriesOfMetric(name);
      ids->insert(ids->end(), of.begin(), of.end());
      if (over()) return too_many();
    }
  }
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  return Status::OK();
}

// The request's time range cut at partition boundaries, ascending, each
// inclusive. Exporting one partition at a time keeps one partition in use,
// where series by series over the whole range would cycle through every
// partition once per series (and through the engine's open-partition LRU).
std::vector<std::pair<Timestamp, Timestamp>> ExportWindows(storage::Storage* st,
                                                           const ExportRequest& req) {
  std::vector<std::pair<Timestamp, Timestamp>> out;
  const auto ranges = st->PartitionRanges();
  if (ranges.empty()) {
    out.emplace_back(req.start_ms, req.end_ms);
    return out;
  }
  for (const auto& [b, e] : ranges) {
    const Timestamp w0 = std::max(b, req.start_ms);
    const Timestamp w1 = std::min(e - 1, req.end_ms);
    if (w0 <= w1) out.emplace_back(w0, w1);
  }
  return out;
}

}  // namespace

bool ParseExportFormat(std::string_view name, ExportFormat* out) {
  if (name == "put") *out = ExportFormat::kPut;
  else if (name == "json") *out = ExportFormat::kJson;
  else if (name == "csv") *out = ExportFormat::kCsv;
  else return false;
  return true;
}

bool GlobMatch(std::string_view glob, std::string_view name) {
  // Iterative matcher with one backtrack point: linear in practice,
  // O(|glob| * |name|) at worst.
  size_t g = 0, n = 0, star = std::string_view::npos, mark = 0;
  while (n < name.size()) {
    if (g < glob.size() && (glob[g] == '?' || glob[g] == name[n])) {
      ++g;
      ++n;
    } else if (g < glob.size() && glob[g] == '*') {
      star = g++;
      mark = n;
    } else if (star != std::string_view::npos) {
      g = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (g < glob.size() && glob[g] == '*') ++g;
  return g == glob.size();
}

Status ParseExportParams(const ParamList& params, Timestamp now_ms, ExportRequest* out) {
  const std::string* start = FindParam(params, "start");
  const std::string* end = FindParam(params, "end");
  if (start == nullptr || start->empty()) {
    return Status::InvalidArgument("Missing parameter <code>start</code>");
  }
  QuerySpec spec;
  SUNDIAL_RETURN_IF_ERROR(ParseTimeRange(*start, end ? std::string_view(*end) : std::string_view(),
                                         end != nullptr, now_ms, &spec));
  out->start_ms = spec.start_ms;
  out->end_ms = spec.end_ms;
  if (const std::string* f = FindParam(params, "format"); f != nullptr) {
    if (!ParseExportFormat(*f, &out->format)) {
      return Status::InvalidArgument("Unknown export format '" + *f + "' (put, json or csv)");
    }
  }
  for (const auto& kv : params) {
    if (kv.first == "m") {
      SUNDIAL_RETURN_IF_ERROR(ParseMSubQueryInto(kv.second, &out->queries.emplace_back()));
    } else if (kv.first == "metric") {
      if (kv.second.empty()) return Status::InvalidArgument("Empty parameter <code>metric</code>");
      out->metric_patterns.push_back(kv.second);
    }
  }
  if (out->queries.empty() && out->metric_patterns.empty()) {
    return Status::InvalidArgument("Missing parameter <code>m</code> or <code>metric</code>");
  }
  return Status::OK();
}

Status ParseExportJson(std::string_view body, Timestamp now_ms, ExportRequest* out) {
  QuerySpec spec;
  SUNDIAL_RETURN_IF_ERROR(ParseQueryJson(body, now_ms, &spec));
  out->start_ms = spec.start_ms;
  out->end_ms = spec.end_ms;
  for (SubQuery& q : spec.queries) {
    if (!q.tsuids.empty()) return Status::InvalidArgument("Export does not take tsuids");
    out->queries.push_back(std::move(q));
  }
  return Status::OK();
}

Status Export(storage::Storage* st, const QueryLimits& limits, const ExportRequest& req,
              ChunkSink* sink, uint64_t* points) {
  // Reported however the export ends.
  uint64_t written = 0;
  struct Report {
    const uint64_t& written;
    uint64_t* points;
    ~Report() {
      if (points != nullptr) *points = written;
    }
  } report{written, points};
  std::vector<SeriesId> ids;
  SUNDIAL_RETURN_IF_ERROR(SelectExportSeries(st, limits, req, &ids));
  std::string buf;
  buf.reserve(kChunkBytes + 4096);
  if (req.format == ExportFormat::kCsv) buf.append("metric,timestamp,value,tags\n");
  const bool json = req.format == ExportFormat::kJson;
  const bool csv = req.format == ExportFormat::kCsv;
  std::string prefix, suffix;
  for (const auto& [w0, w1] : ExportWindows(st, req)) {
    for (SeriesId id : ids) {
      std::unique_ptr<SampleIterator> it = st->NewIterator(id, w0, w1);
      bool first = true;
      while (it->Next()) {
        if (first) {
          SeriesKeyRef key;
          if (!st->GetSeriesKeyRef(id, &key).ok()) break;
          SeriesAffixes(req.format, key, &prefix, &suffix);
          first = false;
        }
        buf.append(prefix);
        if (csv) AppendInt(it->t(), &buf);
        else AppendPutTimestamp(it->t(), &buf);
        buf.append(json ? ",\"value\":" : csv ? "," : " ");
        AppendValue(it->v(), json, &buf);
        buf.append(suffix);
        ++written;
        if (buf.size() >= kChunkBytes) {
          if (!sink->Write(std::move(buf))) return Status::Unavailable("export client went away");
          buf.clear();
          buf.reserve(kChunkBytes + 4096);
        }
      }
      SUNDIAL_RETURN_IF_ERROR(it->status());
    }
  }
  if (!buf.empty() && !sink->Write(std::move(buf))) {
    return Status::Unavailable("export client went away");
  }
  return Status::OK();
}

}  // namespace sundial::query
