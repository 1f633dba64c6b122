// POST /api/query JSON body (opentsdb-compat.md §5.3). Parsed with
// nlohmann::ordered_json (no exceptions, insertion order kept so that
// "tags"/"filters" resolve last-wins like OpenTSDB's Jackson setters).
#include <cctype>
#include <nlohmann/json.hpp>

#include "lenient_json_impl.h"
#include "sundial/common/ascii.h"
#include "sundial/query/json_limits.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {
namespace {

using Json = LenientJson;

Status ParseRateOptionsJson(const Json& j, RateOptions* out) {
  if (j.is_null()) return Status::OK();
  if (!j.is_object()) return FieldError("rateOptions");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    bool ok = true;
    if (k == "counter" || k == "isCounter") ok = LenientBool(*it, &out->counter);
    else if (k == "counterMax") ok = LenientInt64(*it, &out->counter_max);
    else if (k == "resetValue") ok = LenientInt64(*it, &out->reset_value);
    else if (k == "dropResets") ok = LenientBool(*it, &out->drop_resets);
    if (!ok) return FieldError(k);
  }
  return Status::OK();
}

Status ParseFiltersJson(const Json& j, std::vector<TagFilter>* out) {
  out->clear();
  if (j.is_null()) return Status::OK();
  if (!j.is_array()) return FieldError("filters");
  for (const Json& f : j) {
    if (!f.is_object()) return FieldError("filters");
    std::string type, tagk, filter;
    bool group_by = false;
    for (auto it = f.begin(); it != f.end(); ++it) {
      bool ok = true;
      if (it.key() == "type") ok = LenientString(*it, DoubleText::kFixed, &type);
      else if (it.key() == "tagk") ok = LenientString(*it, DoubleText::kFixed, &tagk);
      else if (it.key() == "filter") ok = LenientString(*it, DoubleText::kFixed, &filter);
      else if (it.key() == "groupBy" || it.key() == "group_by") ok = LenientBool(*it, &group_by);
      if (!ok) return FieldError(it.key());
    }
    TagFilter tf;
    Status s = TagFilter::Create(AsciiLower(type), tagk, filter, group_by, &tf);
    if (!s.ok()) return JsonError(s.message());
    out->push_back(std::move(tf));
  }
  return Status::OK();
}

Status ParseTagsJson(const Json& j, std::vector<TagFilter>* out) {
  out->clear();
  if (j.is_null()) return Status::OK();
  if (!j.is_object()) return FieldError("tags");
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string v;
    if (!LenientString(*it, DoubleText::kFixed, &v)) return FieldError("tags");
    TagFilter tf;
    Status s = TagFilter::FromShorthand(it.key(), v, true, &tf);
    if (!s.ok()) return JsonError(s.message());
    bool dup = false;
    for (TagFilter& e : *out) {
      if (e.Key() == tf.Key()) dup = true;
    }
    if (!dup) out->push_back(std::move(tf));
  }
  return Status::OK();
}

// Raw fields of one sub-query; validated after the whole body is read, as
// OpenTSDB validates after deserialising.
struct RawSub {
  std::string aggregator, metric, downsample;
  std::vector<std::string> tsuids;
  SubQuery q;
};

Status ParseSubQueryJson(const Json& j, RawSub* raw) {
  if (!j.is_object()) return JsonError("Each query must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    bool ok = true;
    if (k == "aggregator") ok = v.is_null() || LenientString(v, DoubleText::kFixed, &raw->aggregator);
    else if (k == "metric") ok = v.is_null() || LenientString(v, DoubleText::kFixed, &raw->metric);
    else if (k == "downsample") ok = v.is_null() || LenientString(v, DoubleText::kFixed, &raw->downsample);
    else if (k == "rate") ok = LenientBool(v, &raw->q.rate);
    else if (k == "explicitTags") ok = LenientBool(v, &raw->q.explicit_tags);
    else if (k == "rateOptions") {
      raw->q.has_rate_options = !v.is_null();
      SUNDIAL_RETURN_IF_ERROR(ParseRateOptionsJson(v, &raw->q.rate_options));
    } else if (k == "filters") {
      SUNDIAL_RETURN_IF_ERROR(ParseFiltersJson(v, &raw->q.filters));
    } else if (k == "tags") {
      SUNDIAL_RETURN_IF_ERROR(ParseTagsJson(v, &raw->q.filters));
    } else if (k == "tsuids") {
      if (v.is_array()) {
        for (const Json& t : v) {
          std::string s;
          if (!LenientString(t, DoubleText::kFixed, &s)) return FieldError("tsuids");
          raw->tsuids.push_back(s);
        }
      } else if (!v.is_null()) {
        ok = false;
      }
    }
    if (!ok) return FieldError(k);
  }
  return Status::OK();
}

Status ValidateSub(RawSub* raw, bool use_calendar, SubQuery* out) {
  SubQuery& q = raw->q;
  if (raw->aggregator.empty()) return Status::InvalidArgument("Missing the aggregation function");
  q.aggregator = FindAggregator(raw->aggregator);
  if (q.aggregator == nullptr) {
    return Status::InvalidArgument("No such aggregation function: " + raw->aggregator);
  }
  for (std::string& t : raw->tsuids) {
    for (char& c : t) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  q.tsuids = std::move(raw->tsuids);
  if (raw->metric.empty() && q.tsuids.empty()) {
    return Status::InvalidArgument("Missing the metric or tsuids, provide at least one");
  }
  if (!raw->metric.empty()) {
    // A metric may carry {tags}{filters} like m=; those replace filters.
    if (raw->metric.find('{') != std::string::npos) {
      std::vector<TagFilter> f;
      SUNDIAL_RETURN_IF_ERROR(ParseMetricAndFilters(raw->metric, &q.metric, &f));
      for (TagFilter& x : f) q.filters.push_back(std::move(x));
    } else {
      q.metric = raw->metric;
    }
  }
  if (!raw->downsample.empty()) {
    SUNDIAL_RETURN_IF_ERROR(ParseDownsample(raw->downsample, use_calendar, &q.downsample));
  }
  *out = std::move(q);
  return Status::OK();
}

struct RawTop {
  std::string start, end, timezone;
  bool has_start = false, has_end = false, has_tz = false;
};

Status ParseTopField(const std::string& k, const Json& v, RawTop* top, QuerySpec* spec) {
  bool ok = true;
  if (k == "start") {
    top->has_start = !v.is_null();
    ok = v.is_null() || LenientString(v, DoubleText::kFixed, &top->start);
  } else if (k == "end") {
    top->has_end = !v.is_null();
    ok = v.is_null() || LenientString(v, DoubleText::kFixed, &top->end);
  } else if (k == "timezone") {
    top->has_tz = !v.is_null();
    ok = v.is_null() || LenientString(v, DoubleText::kFixed, &top->timezone);
  } else if (k == "msResolution") ok = LenientBool(v, &spec->ms_resolution);
  else if (k == "showTSUIDs") ok = LenientBool(v, &spec->show_tsuids);
  else if (k == "showQuery") ok = LenientBool(v, &spec->show_query);
  else if (k == "noAnnotations") ok = LenientBool(v, &spec->no_annotations);
  else if (k == "globalAnnotations") ok = LenientBool(v, &spec->global_annotations);
  else if (k == "useCalendar") ok = LenientBool(v, &spec->use_calendar);
  else if (k == "showStats") ok = LenientBool(v, &spec->show_stats);
  else if (k == "showSummary") ok = LenientBool(v, &spec->show_summary);
  else if (k == "delete") ok = LenientBool(v, &spec->delete_data);
  return ok ? Status::OK() : FieldError(k);
}

}  // namespace

Status ParseQueryJson(std::string_view body, Timestamp now_ms, QuerySpec* out) {
  SUNDIAL_RETURN_IF_ERROR(CheckBodyNotBlank(body));
  // Size and depth first: the DOM would allocate per nesting level.
  SUNDIAL_RETURN_IF_ERROR(CheckJsonBounds(body));
  const Json j = Json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded()) return JsonError("Malformed JSON in the request body");
  if (!j.is_object()) return JsonError("The query must be a JSON object");
  QuerySpec spec;
  RawTop top;
  std::vector<RawSub> raws;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "queries") {
      if (it->is_null()) continue;
      if (!it->is_array()) return FieldError("queries");
      raws.clear();
      for (const Json& q : *it) {
        RawSub raw;
        SUNDIAL_RETURN_IF_ERROR(ParseSubQueryJson(q, &raw));
        raws.push_back(std::move(raw));
      }
    } else {
      SUNDIAL_RETURN_IF_ERROR(ParseTopField(it.key(), *it, &top, &spec));
    }
  }
  if (top.has_tz && !top.timezone.empty()) {
    SUNDIAL_RETURN_IF_ERROR(TimeZone::Load(top.timezone, &spec.tz));
  }
  if (!top.has_start || top.start.empty()) return Status::InvalidArgument("Missing start time");
  SUNDIAL_RETURN_IF_ERROR(ParseTimeRange(top.start, top.end, top.has_end, now_ms, &spec));
  if (raws.empty()) return Status::InvalidArgument("Missing queries");
  for (RawSub& raw : raws) {
    SubQuery q;
    SUNDIAL_RETURN_IF_ERROR(ValidateSub(&raw, spec.use_calendar, &q));
    spec.queries.push_back(std::move(q));
  }
  DedupSubQueries(&spec.queries);
  *out = std::move(spec);
  return Status::OK();
}

}  // namespace sundial::query
