// /api/suggest, /api/search/lookup and /api/query/last (opentsdb-compat.md
// §6.1, §6.2, §6.4).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>

#include "sundial/common/parse_int.h"
#include "sundial/query/json_format.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {
namespace {

using Json = nlohmann::ordered_json;
using storage::NameKind;
using storage::SeriesKey;

Status Unresolved(const char* kind, const std::string& name) {
  return Status::NotFound(std::string("Unable to resolve one or more UIDs") + kDetailsSeparator +
                          "No such name for '" + kind + "': '" + name + "'");
}

// "metric{k=v,k2=v2}" -> metric and tag pairs (values may be "*").
Status ParseMetricTags(std::string_view s, std::string* metric,
                       std::vector<std::pair<std::string, std::string>>* tags) {
  const size_t curly = s.find('{');
  if (curly == std::string_view::npos) {
    *metric = std::string(s);
    return Status::OK();
  }
  if (s.back() != '}') return Status::InvalidArgument("Missing '}' at the end of: " + std::string(s));
  *metric = std::string(s.substr(0, curly));
  std::string_view body = s.substr(curly + 1, s.size() - curly - 2);
  size_t start = 0;
  for (size_t i = 0; i <= body.size(); ++i) {
    if (i != body.size() && body[i] != ',') continue;
    const std::string_view kv = body.substr(start, i - start);
    start = i + 1;
    if (kv.empty()) continue;
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument("When parsing tag '" + std::string(kv) + "': invalid tag: " +
                                     std::string(kv));
    }
    tags->emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
  }
  return Status::OK();
}

void AppendTagsObject(const SeriesKey& key, std::string* out) {
  out->push_back('{');
  for (size_t i = 0; i < key.tags.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(key.tags[i].first, out);
    out->push_back(':');
    AppendJsonString(key.tags[i].second, out);
  }
  out->push_back('}');
}

// Key is a SeriesKey or a SeriesKeyRef.
template <typename Key>
bool HasTag(const Key& key, const std::string& k, const std::string& v) {
  for (const auto& kv : key.tags) {
    const bool kok = k.empty() || k == "*" || kv.first == k;
    const bool vok = v.empty() || v == "*" || kv.second == v;
    if (kok && vok) return true;
  }
  return false;
}

// The /api/search/lookup answer (SearchQuery as OpenTSDB serialises it).
void AppendLookupJson(const LookupRequest& req, bool any_metric,
                      const std::vector<std::pair<std::string, SeriesKey>>& results, double ms,
                      std::string* json) {
  std::string& out = *json;
  out = "{\"type\":\"LOOKUP\",\"metric\":";
  AppendJsonString(any_metric ? "*" : req.metric, &out);
  out.append(",\"tags\":[");
  for (size_t i = 0; i < req.tags.size(); ++i) {
    if (i) out.push_back(',');
    out.append("{\"key\":");
    AppendJsonString(req.tags[i].first, &out);
    out.append(",\"value\":");
    AppendJsonString(req.tags[i].second, &out);
    out.push_back('}');
  }
  out.append("],\"limit\":");
  AppendInt(req.limit, &out);
  out.append(",\"results\":[");
  size_t n = 0;
  for (const auto& r : results) {
    if (req.limit > 0 && n >= static_cast<size_t>(req.limit)) break;
    if (n++) out.push_back(',');
    out.append("{\"tsuid\":");
    AppendJsonString(r.first, &out);
    out.append(",\"metric\":");
    AppendJsonString(r.second.metric, &out);
    out.append(",\"tags\":");
    AppendTagsObject(r.second, &out);
    out.push_back('}');
  }
  out.append("],\"startIndex\":0,\"totalResults\":");
  AppendInt(static_cast<int64_t>(n), &out);
  out.append(",\"time\":");
  AppendJavaDouble(ms, &out);
  out.push_back('}');
}

}  // namespace

Status QueryEngine::Suggest(std::string_view type, std::string_view q, int64_t max,
                            std::string* json) const {
  NameKind kind;
  if (type == "metrics") kind = NameKind::kMetric;
  else if (type == "tagk") kind = NameKind::kTagKey;
  else if (type == "tagv") kind = NameKind::kTagValue;
  else return Status::InvalidArgument("Invalid 'type' parameter:" + std::string(type));
  if (max <= 0) max = 25;
  const std::vector<std::string> names =
      storage_->SuggestNames(kind, q, static_cast<size_t>(std::min<int64_t>(max, 1 << 30)));
  json->assign("[");
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) json->push_back(',');
    AppendJsonString(names[i], json);
  }
  json->push_back(']');
  return Status::OK();
}

Status ParseLookupParams(const ParamList& params, LookupRequest* out) {
  const std::string* m = FindParam(params, "m");
  if (m == nullptr) return Status::InvalidArgument("Missing parameter <code>m</code>");
  LookupRequest r;
  SUNDIAL_RETURN_IF_ERROR(ParseMetricTags(*m, &r.metric, &r.tags));
  if (const std::string* l = FindParam(params, "limit")) {
    if (!ParseInt64(*l, &r.limit)) return Status::InvalidArgument("Unable to parse 'limit' as a number");
  }
  if (r.metric.empty() && r.tags.empty()) {
    return Status::InvalidArgument("Missing metric and tags. Please supply at least one value.");
  }
  *out = std::move(r);
  return Status::OK();
}

Status ParseLookupJson(std::string_view body, LookupRequest* out) {
  const Json j = Json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                   kDetailsSeparator + "Malformed JSON in the request body");
  }
  LookupRequest r;
  if (j.contains("metric") && j["metric"].is_string()) r.metric = j["metric"].get<std::string>();
  if (j.contains("limit") && j["limit"].is_number_integer()) r.limit = j["limit"].get<int64_t>();
  if (j.contains("tags") && j["tags"].is_array()) {
    for (const Json& t : j["tags"]) {
      if (!t.is_object()) continue;
      std::string k, v;
      if (t.contains("key") && t["key"].is_string()) k = t["key"].get<std::string>();
      if (t.contains("value") && t["value"].is_string()) v = t["value"].get<std::string>();
      r.tags.emplace_back(k, v);
    }
  }
  if (r.metric.empty() && r.tags.empty()) {
    return Status::InvalidArgument("Missing metric and tags. Please supply at least one value.");
  }
  *out = std::move(r);
  return Status::OK();
}

Status QueryEngine::Lookup(const LookupRequest& req, std::string* json) const {
  const auto t0 = std::chrono::steady_clock::now();
  uint32_t uid = 0;
  std::vector<SeriesId> ids;
  const bool any_metric = req.metric.empty() || req.metric == "*";
  if (any_metric) {
    for (const std::string& m : storage_->SuggestNames(NameKind::kMetric, "", 0)) {
      std::vector<SeriesId> s = storage_->SeriesOfMetric(m);
      ids.insert(ids.end(), s.begin(), s.end());
    }
  } else {
    if (!storage_->LookupUid(NameKind::kMetric, req.metric, &uid).ok()) {
      return Unresolved("metrics", req.metric);
    }
    ids = storage_->SeriesOfMetric(req.metric);
  }
  for (const auto& kv : req.tags) {
    if (!kv.first.empty() && kv.first != "*" &&
        !storage_->LookupUid(NameKind::kTagKey, kv.first, &uid).ok()) {
      return Unresolved("tagk", kv.first);
    }
    if (!kv.second.empty() && kv.second != "*" &&
        !storage_->LookupUid(NameKind::kTagValue, kv.second, &uid).ok()) {
      return Unresolved("tagv", kv.second);
    }
  }
  // The answer is the `limit` smallest TSUIDs. Keep only those (a max-heap
  // by TSUID) while scanning borrowed keys, and copy out the names of the
  // kept series at the end: memory is bounded by the limit, not by the
  // number of series scanned.
  using Hit = std::pair<std::string, SeriesId>;  // (TSUID, id)
  std::vector<Hit> hits;
  const size_t limit = req.limit > 0 ? static_cast<size_t>(req.limit) : SIZE_MAX;
  storage::SeriesKeyRef ref;
  for (SeriesId id : ids) {
    if (!storage_->GetSeriesKeyRef(id, &ref).ok()) continue;
    bool ok = true;
    for (const auto& kv : req.tags) ok = ok && HasTag(ref, kv.first, kv.second);
    if (!ok) continue;
    std::string tsuid = TsuidOf(ref);
    if (hits.size() == limit && !(tsuid < hits.front().first)) continue;
    hits.emplace_back(std::move(tsuid), id);
    std::push_heap(hits.begin(), hits.end());
    if (hits.size() > limit) {
      std::pop_heap(hits.begin(), hits.end());
      hits.pop_back();
    }
  }
  std::vector<SeriesId>().swap(ids);
  std::sort_heap(hits.begin(), hits.end());
  std::vector<std::pair<std::string, SeriesKey>> results;
  results.reserve(hits.size());
  for (Hit& h : hits) {
    SeriesKey key;
    if (!storage_->GetSeriesKey(h.second, &key).ok()) continue;
    results.emplace_back(std::move(h.first), std::move(key));
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::string out;
  AppendLookupJson(req, any_metric, results, ms, &out);
  *json = std::move(out);
  return Status::OK();
}

Status ParseLastParams(const ParamList& params, LastRequest* out) {
  LastRequest r;
  for (const auto& kv : params) {
    if (kv.first == "timeseries") {
      LastQuery q;
      SUNDIAL_RETURN_IF_ERROR(ParseMetricTags(kv.second, &q.metric, &q.tags));
      r.queries.push_back(std::move(q));
    } else if (kv.first == "tsuids") {
      LastQuery q;
      size_t s = 0;
      for (size_t i = 0; i <= kv.second.size(); ++i) {
        if (i != kv.second.size() && kv.second[i] != ',') continue;
        if (i > s) q.tsuids.push_back(kv.second.substr(s, i - s));
        s = i + 1;
      }
      r.queries.push_back(std::move(q));
    }
  }
  r.resolve = HasParam(params, "resolve");
  if (const std::string* b = FindParam(params, "back_scan")) {
    if (!ParseInt64(*b, &r.back_scan_hours)) {
      return Status::InvalidArgument("Unable to parse 'back_scan' as a number");
    }
  }
  if (r.queries.empty()) return Status::InvalidArgument("Missing sub queries");
  *out = std::move(r);
  return Status::OK();
}

Status ParseLastJson(std::string_view body, LastRequest* out) {
  const Json j = Json::parse(body.begin(), body.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                   kDetailsSeparator + "Malformed JSON in the request body");
  }
  LastRequest r;
  if (j.contains("resolveNames") && j["resolveNames"].is_boolean()) r.resolve = j["resolveNames"].get<bool>();
  if (j.contains("backScan") && j["backScan"].is_number_integer()) r.back_scan_hours = j["backScan"].get<int64_t>();
  if (j.contains("queries") && j["queries"].is_array()) {
    for (const Json& q : j["queries"]) {
      if (!q.is_object()) continue;
      LastQuery lq;
      if (q.contains("metric") && q["metric"].is_string()) lq.metric = q["metric"].get<std::string>();
      if (q.contains("tags") && q["tags"].is_object()) {
        for (auto it = q["tags"].begin(); it != q["tags"].end(); ++it) {
          if (it->is_string()) lq.tags.emplace_back(it.key(), it->get<std::string>());
        }
      }
      if (q.contains("tsuids") && q["tsuids"].is_array()) {
        for (const Json& t : q["tsuids"]) {
          if (t.is_string()) lq.tsuids.push_back(t.get<std::string>());
        }
      }
      r.queries.push_back(std::move(lq));
    }
  }
  if (r.queries.empty()) return Status::InvalidArgument("Missing sub queries");
  *out = std::move(r);
  return Status::OK();
}

Status QueryEngine::Last(const LastRequest& req, Timestamp now_ms, std::string* json,
                         uint64_t* points) const {
  if (points != nullptr) *points = 0;
  std::set<SeriesId> seen;
  std::string out = "[";
  bool first = true;
  for (const LastQuery& q : req.queries) {
    std::vector<SeriesId> ids;
    std::set<std::string> want_tsuids;
    for (const std::string& t : q.tsuids) {
      std::string up = t;
      for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      want_tsuids.insert(up);
    }
    if (!q.tsuids.empty()) {
      for (const std::string& m : storage_->SuggestNames(NameKind::kMetric, "", 0)) {
        std::vector<SeriesId> s = storage_->SeriesOfMetric(m);
        ids.insert(ids.end(), s.begin(), s.end());
      }
    } else {
      // Unknown names are errors, as OpenTSDB's UID lookups throw
      // NoSuchUniqueName (TestQueryRpcLastDataPoint qsMetricNSUN*).
      uint32_t uid = 0;
      if (!storage_->LookupUid(NameKind::kMetric, q.metric, &uid).ok()) {
        return NoSuchName("metrics", q.metric);
      }
      const auto known = [&](NameKind kind, const std::string& name) {
        return name.empty() || name == "*" || storage_->LookupUid(kind, name, &uid).ok();
      };
      for (const auto& kv : q.tags) {
        if (!known(NameKind::kTagKey, kv.first)) return NoSuchName("tagk", kv.first);
        if (!known(NameKind::kTagValue, kv.second)) return NoSuchName("tagv", kv.second);
      }
      ids = storage_->SeriesOfMetric(q.metric);
    }
    storage::SeriesKeyRef ref;
    for (SeriesId id : ids) {
      // Checks on borrowed names; only an answered series is copied.
      if (seen.count(id) || !storage_->GetSeriesKeyRef(id, &ref).ok()) continue;
      const std::string tsuid = TsuidOf(ref);
      if (!want_tsuids.empty() && !want_tsuids.count(tsuid)) continue;
      bool ok = true;
      for (const auto& kv : q.tags) ok = ok && HasTag(ref, kv.first, kv.second);
      Sample s;
      SeriesKey key;
      if (!ok || !storage_->LastPoint(id, &s).ok()) continue;
      if (req.resolve && !storage_->GetSeriesKey(id, &key).ok()) continue;
      if (req.back_scan_hours > 0 && s.t < now_ms - req.back_scan_hours * 3600000) continue;
      seen.insert(id);
      out.append(first ? "{" : ",{");
      first = false;
      if (req.resolve) {
        out.append("\"metric\":");
        AppendJsonString(key.metric, &out);
        out.append(",\"tags\":");
        AppendTagsObject(key, &out);
        out.push_back(',');
      }
      out.append("\"timestamp\":");
      AppendInt(s.t, &out);
      out.append(",\"value\":");
      AppendJsonString(s.v.is_int() ? std::to_string(s.v.int_value())
                                    : JavaDoubleToString(s.v.float_value()), &out);
      out.append(",\"tsuid\":");
      AppendJsonString(tsuid, &out);
      out.push_back('}');
    }
  }
  out.push_back(']');
  *json = std::move(out);
  if (points != nullptr) *points = seen.size();  // one point per answered series
  return Status::OK();
}

}  // namespace sundial::query
