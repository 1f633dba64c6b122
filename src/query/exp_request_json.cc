// POST /api/query/exp body -> ExpRequest (before validation), and the
// "query" echo of the response. Jackson's leniency: unknown keys ignored,
// scalars coerced between strings, numbers and booleans.
#include <nlohmann/json.hpp>

#include "exp_request_impl.h"
#include "lenient_json_impl.h"
#include "sundial/common/ascii.h"
#include "sundial/query/json_format.h"
#include "sundial/query/json_limits.h"

namespace sundial::query {
namespace {

using Json = LenientJson;

// Reads a string field: *has tells whether it was given (null is not).
Status StringField(const std::string& key, const Json& v, bool* has, std::string* out) {
  if (v.is_null()) return Status::OK();
  if (!LenientString(v, DoubleText::kJava, out)) return FieldError(key);
  *has = true;
  return Status::OK();
}

// A builder's setId() runs Query.validateId while the JSON is read.
Status IdField(const Json& v, bool* has, std::string* out) {
  std::string id;
  if (!v.is_null() && !LenientString(v, DoubleText::kJava, &id)) return FieldError("id");
  const Status s = ValidateExpId(id);
  if (!s.ok()) return JsonError(s.message());
  *has = true;
  *out = std::move(id);
  return Status::OK();
}

Status ParseFill(const std::string& key, const Json& j, ExpFill* out) {
  if (!j.is_object()) return FieldError(key);
  bool has_policy = false;
  std::string policy;
  double value = 0;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "policy") {
      SUNDIAL_RETURN_IF_ERROR(StringField("policy", *it, &has_policy, &policy));
    } else if (it.key() == "value") {
      if (!LenientDouble(*it, &value)) return FieldError("value");
    }
  }
  std::optional<FillPolicy> p;
  if (has_policy) {
    FillPolicy fp;
    if (!ParseFillPolicyName(policy, &fp)) return JsonError("Unrecognized fill policy: " + policy);
    p = fp;
  }
  const Status s = ResolveFill(p, value, out);
  return s.ok() ? s : JsonError(s.message());
}

Status ParseDownsampler(const Json& v, ExpDownsampler* d) {
  if (!v.is_object()) return FieldError("downsampler");
  bool has = false;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string& k = it.key();
    if (k == "interval") {
      SUNDIAL_RETURN_IF_ERROR(StringField(k, *it, &has, &d->interval));
    } else if (k == "aggregator") {
      SUNDIAL_RETURN_IF_ERROR(StringField(k, *it, &has, &d->aggregator));
    } else if (k == "fillPolicy" && !it->is_null()) {
      SUNDIAL_RETURN_IF_ERROR(ParseFill(k, *it, &d->fill));
      d->has_fill = true;
    }
  }
  return Status::OK();
}

Status ParseTime(const Json& j, ExpTime* t) {
  if (!j.is_object()) return FieldError("time");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    Status s;
    if (k == "start") s = StringField(k, v, &t->has_start, &t->start);
    else if (k == "end") s = StringField(k, v, &t->has_end, &t->end);
    else if (k == "timezone") s = StringField(k, v, &t->has_timezone, &t->timezone);
    else if (k == "aggregator") s = StringField(k, v, &t->has_aggregator, &t->aggregator);
    else if (k == "rate" && !LenientBool(v, &t->rate)) s = FieldError(k);
    else if (k == "downsampler" && !v.is_null()) {
      t->has_downsampler = true;
      s = ParseDownsampler(v, &t->downsampler);
    }
    SUNDIAL_RETURN_IF_ERROR(s);
  }
  return Status::OK();
}

Status ParseFilterSet(const Json& j, ExpFilterSet* f) {
  if (!j.is_object()) return FieldError("filters");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    if (k == "id") {
      SUNDIAL_RETURN_IF_ERROR(IdField(*it, &f->has_id, &f->id));
    } else if (k == "explicitTags" && !LenientBool(*it, &f->explicit_tags)) {
      return FieldError(k);
    } else if (k == "tags" && !it->is_null()) {
      if (!it->is_array()) return FieldError(k);
      f->has_tags = true;
      f->tags.clear();
      for (const Json& t : *it) {
        if (!t.is_object()) return FieldError(k);
        std::string type, tagk, filter;
        bool group_by = false, unused = false;
        for (auto ti = t.begin(); ti != t.end(); ++ti) {
          const std::string& tk = ti.key();
          if (tk == "type") SUNDIAL_RETURN_IF_ERROR(StringField(tk, *ti, &unused, &type));
          else if (tk == "tagk") SUNDIAL_RETURN_IF_ERROR(StringField(tk, *ti, &unused, &tagk));
          else if (tk == "filter") SUNDIAL_RETURN_IF_ERROR(StringField(tk, *ti, &unused, &filter));
          else if ((tk == "groupBy" || tk == "group_by") && !LenientBool(*ti, &group_by)) {
            return FieldError(tk);
          }
        }
        TagFilter tf;
        const Status s = TagFilter::Create(AsciiLower(type), tagk, filter, group_by, &tf);
        if (!s.ok()) return JsonError(s.message());
        f->tags.push_back(std::move(tf));
      }
    }
  }
  return Status::OK();
}

Status ParseMetric(const Json& j, ExpMetric* m) {
  if (!j.is_object()) return FieldError("metrics");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    Status s;
    if (k == "id") s = IdField(v, &m->has_id, &m->id);
    else if (k == "metric") s = StringField(k, v, &m->has_metric, &m->metric);
    else if (k == "filter") s = StringField(k, v, &m->has_filter, &m->filter);
    else if (k == "aggregator") s = StringField(k, v, &m->has_aggregator, &m->aggregator);
    else if (k == "timeOffset") s = StringField(k, v, &m->has_time_offset, &m->time_offset);
    else if (k == "fillPolicy" && !v.is_null()) {
      s = ParseFill(k, v, &m->fill);
      m->has_fill = true;
    }
    SUNDIAL_RETURN_IF_ERROR(s);
  }
  return Status::OK();
}

Status ParseExpression(const Json& j, ExpExpression* e) {
  if (!j.is_object()) return FieldError("expressions");
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (k == "id") {
      SUNDIAL_RETURN_IF_ERROR(IdField(v, &e->has_id, &e->id));
    } else if (k == "expr") {
      SUNDIAL_RETURN_IF_ERROR(StringField(k, v, &e->has_expr, &e->expr));
    } else if (k == "fillPolicy" && !v.is_null()) {
      SUNDIAL_RETURN_IF_ERROR(ParseFill(k, v, &e->fill));
      e->has_fill = true;
    } else if (k == "join" && !v.is_null()) {
      if (!v.is_object()) return FieldError(k);
      e->has_join = true;
      for (auto ji = v.begin(); ji != v.end(); ++ji) {
        const std::string& jk = ji.key();
        if (jk == "operator" && !ji->is_null()) {
          std::string op;
          if (!LenientString(*ji, DoubleText::kJava, &op)) return FieldError(jk);
          const std::string lower = AsciiLower(op);
          if (lower != "union" && lower != "intersection") {
            return JsonError("Unrecognized set operator: " + op);
          }
          e->join.has_operator = true;
          e->join.intersection = lower == "intersection";
        } else if (jk == "useQueryTags" && !LenientBool(*ji, &e->join.use_query_tags)) {
          return FieldError(jk);
        } else if (jk == "includeAggTags" && !LenientBool(*ji, &e->join.include_agg_tags)) {
          return FieldError(jk);
        }
      }
    }
  }
  return Status::OK();
}

Status ParseOutput(const Json& j, ExpOutput* o) {
  if (!j.is_object()) return FieldError("outputs");
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "id") SUNDIAL_RETURN_IF_ERROR(IdField(*it, &o->has_id, &o->id));
    else if (it.key() == "alias") {
      SUNDIAL_RETURN_IF_ERROR(StringField("alias", *it, &o->has_alias, &o->alias));
    }
  }
  return Status::OK();
}

// Parses the array j into *items with parse_one; null leaves it absent.
template <typename T, typename Fn>
Status ParseList(const std::string& key, const Json& j, bool* has, std::vector<T>* items,
                 Fn parse_one) {
  if (j.is_null()) return Status::OK();
  if (!j.is_array()) return FieldError(key);
  if (j.size() > kMaxExpItems) {
    return Status::InvalidArgument("Too many " + key + ": at most " +
                                   std::to_string(kMaxExpItems) + " per query");
  }
  *has = true;
  items->clear();
  items->resize(j.size());
  for (size_t i = 0; i < j.size(); ++i) SUNDIAL_RETURN_IF_ERROR(parse_one(j[i], &(*items)[i]));
  return Status::OK();
}

}  // namespace

Status ParseExpRequestJson(std::string_view body, ExpRequest* out) {
  SUNDIAL_RETURN_IF_ERROR(CheckBodyNotBlank(body));
  SUNDIAL_RETURN_IF_ERROR(CheckJsonBounds(body, kMaxExpRequestBytes));
  const Json j = Json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded()) return JsonError("Malformed JSON in the request body");
  if (!j.is_object()) return JsonError("The query must be a JSON object");
  ExpRequest r;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = *it;
    if (k == "name") {
      SUNDIAL_RETURN_IF_ERROR(StringField(k, v, &r.has_name, &r.name));
    } else if (k == "time" && !v.is_null()) {
      r.has_time = true;
      r.time = ExpTime();
      SUNDIAL_RETURN_IF_ERROR(ParseTime(v, &r.time));
    } else if (k == "filters") {
      SUNDIAL_RETURN_IF_ERROR(ParseList(k, v, &r.has_filters, &r.filters, ParseFilterSet));
    } else if (k == "metrics") {
      SUNDIAL_RETURN_IF_ERROR(ParseList(k, v, &r.has_metrics, &r.metrics, ParseMetric));
    } else if (k == "expressions") {
      SUNDIAL_RETURN_IF_ERROR(ParseList(k, v, &r.has_expressions, &r.expressions, ParseExpression));
    } else if (k == "outputs") {
      SUNDIAL_RETURN_IF_ERROR(ParseList(k, v, &r.has_outputs, &r.outputs, ParseOutput));
    }
  }
  *out = std::move(r);
  return Status::OK();
}

namespace {

void AppendOptString(bool has, const std::string& s, std::string* out) {
  if (has) AppendJsonString(s, out); else out->append("null");
}

void AppendFill(bool has, const ExpFill& f, std::string* out) {
  if (!has) {
    out->append("null");
    return;
  }
  out->append("{\"policy\":");
  AppendJsonString(FillPolicyName(f.policy), out);
  out->append(",\"value\":");
  AppendJavaDouble(f.value, out);
  out->push_back('}');
}

void AppendBool(bool b, std::string* out) { out->append(b ? "true" : "false"); }

void AppendTime(const ExpTime& t, std::string* out) {
  out->append("{\"start\":");
  AppendOptString(t.has_start, t.start, out);
  out->append(",\"end\":");
  AppendOptString(t.has_end, t.end, out);
  out->append(",\"timezone\":");
  AppendOptString(t.has_timezone, t.timezone, out);
  out->append(",\"downsampler\":");
  if (t.has_downsampler) {
    out->append("{\"interval\":");
    AppendJsonString(t.downsampler.interval, out);
    out->append(",\"aggregator\":");
    AppendJsonString(t.downsampler.aggregator, out);
    out->append(",\"fillPolicy\":");
    AppendFill(t.downsampler.has_fill, t.downsampler.fill, out);
    out->push_back('}');
  } else {
    out->append("null");
  }
  out->append(",\"aggregator\":");
  AppendOptString(t.has_aggregator, t.aggregator, out);
  out->append(",\"rate\":");
  AppendBool(t.rate, out);
  out->push_back('}');
}

void AppendFilterSet(const ExpFilterSet& f, std::string* out) {
  out->append("{\"id\":");
  AppendOptString(f.has_id, f.id, out);
  out->append(",\"tags\":");
  if (!f.has_tags) out->append("null"); else out->push_back('[');
  for (size_t k = 0; f.has_tags && k < f.tags.size(); ++k) {
    const TagFilter& tf = f.tags[k];
    if (k) out->push_back(',');
    out->append("{\"tagk\":");
    AppendJsonString(tf.tagk(), out);
    out->append(",\"filter\":");
    AppendJsonString(tf.filter(), out);
    out->append(",\"group_by\":");
    AppendBool(tf.group_by(), out);
    out->append(",\"type\":");
    AppendJsonString(tf.type_name(), out);
    out->push_back('}');
  }
  if (f.has_tags) out->push_back(']');
  out->append(",\"explicitTags\":");
  AppendBool(f.explicit_tags, out);
  out->push_back('}');
}

void AppendMetric(const ExpMetric& m, std::string* out) {
  out->append("{\"metric\":");
  AppendOptString(m.has_metric, m.metric, out);
  out->append(",\"id\":");
  AppendOptString(m.has_id, m.id, out);
  out->append(",\"filter\":");
  AppendOptString(m.has_filter, m.filter, out);
  out->append(",\"timeOffset\":");
  AppendOptString(m.has_time_offset, m.time_offset, out);
  out->append(",\"aggregator\":");
  AppendOptString(m.has_aggregator, m.aggregator, out);
  out->append(",\"fillPolicy\":");
  AppendFill(m.has_fill, m.fill, out);
  out->push_back('}');
}

void AppendExpression(const ExpExpression& e, std::string* out) {
  out->append("{\"id\":");
  AppendOptString(e.has_id, e.id, out);
  out->append(",\"expr\":");
  AppendOptString(e.has_expr, e.expr, out);
  out->append(",\"join\":{\"operator\":");
  out->append(e.join.intersection ? "\"intersection\"" : "\"union\"");
  out->append(",\"useQueryTags\":");
  AppendBool(e.join.use_query_tags, out);
  out->append(",\"includeAggTags\":");
  AppendBool(e.join.include_agg_tags, out);
  out->append("},\"fillPolicy\":");
  AppendFill(e.has_fill, e.fill, out);
  out->push_back('}');
}

void AppendOutput(const ExpOutput& o, std::string* out) {
  out->append("{\"id\":");
  AppendOptString(o.has_id, o.id, out);
  out->append(",\"alias\":");
  AppendOptString(o.has_alias, o.alias, out);
  out->push_back('}');
}

// Appends ,"<name>":[...] with append_one per item, or null when absent.
template <typename T, typename Fn>
void AppendList(const char* name, bool has, const std::vector<T>& items, Fn append_one,
                std::string* out) {
  out->append(",\"").append(name).append("\":");
  if (!has) {
    out->append("null");
    return;
  }
  out->push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out->push_back(',');
    append_one(items[i], out);
  }
  out->push_back(']');
}

}  // namespace

void AppendExpRequestJson(const ExpRequest& req, std::string* out) {
  out->append("{\"name\":");
  AppendOptString(req.has_name, req.name, out);
  out->append(",\"time\":");
  if (req.has_time) AppendTime(req.time, out); else out->append("null");
  AppendList("filters", req.has_filters, req.filters, AppendFilterSet, out);
  AppendList("metrics", req.has_metrics, req.metrics, AppendMetric, out);
  AppendList("expressions", req.has_expressions, req.expressions, AppendExpression, out);
  AppendList("outputs", req.has_outputs, req.outputs, AppendOutput, out);
  out->push_back('}');
}

}  // namespace sundial::query
