// /api/uid/assign, /api/uid/uidmeta, /api/uid/tsmeta and /api/uid/rename
// (OpenTSDB's UniqueIdRpc, UIDMeta, TSMeta; opentsdb-compat.md §6.7).
//
// UIDs are the series dictionary's per-kind ids, printed as OpenTSDB's
// 3-byte upper-case hex. User-set meta fields (displayName, description,
// notes, custom, and for TS meta units, dataType, retention, min, max) live
// in the MetaStore under "U" + kind digit + uid hex and "T" + tsuid, as a
// JSON object of the fields set. POST merges the fields given, PUT replaces
// them all, DELETE removes them (names and series stay).
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "routes.h"
#include "server_json.h"
#include "sundial/query/annotations.h"
#include "sundial/query/json_limits.h"
#include "sundial/query/query_engine.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;
using storage::NameKind;
using Json = nlohmann::json;

constexpr const char* kTypeNames[3] = {"metric", "tagk", "tagv"};

bool ParseKind(std::string_view type, NameKind* kind) {
  std::string t(type);
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "metric" || t == "metrics") *kind = NameKind::kMetric;
  else if (t == "tagk") *kind = NameKind::kTagKey;
  else if (t == "tagv") *kind = NameKind::kTagValue;
  else return false;
  return true;
}

bool ParseUidHex(std::string_view s, uint32_t* uid) {
  if (s.empty() || s.size() > 8) return false;
  uint32_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = (v << 4) | static_cast<uint32_t>(d);
  }
  *uid = v;
  return v != 0;
}

// OpenTSDB's Tags.validateString: letters, digits, - _ . / and non-ASCII.
bool ValidName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!(std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '/' || u >= 0x80)) {
      return false;
    }
  }
  return true;
}

// ---- /api/uid/assign ----

void AddNames(const Json& v, std::vector<std::string>* out) {
  if (v.is_string()) out->push_back(v.get<std::string>());
  if (!v.is_array()) return;
  for (const Json& n : v) {
    if (n.is_string()) out->push_back(n.get<std::string>());
  }
}

void SplitCommas(std::string_view s, std::vector<std::string>* out) {
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ',') {
      if (i > start) out->emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
}

void HandleAssign(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  std::vector<std::string> names[3];
  if (!req.body.empty()) {
    Status s = query::CheckJsonBounds(req.body);
    const Json j = s.ok() ? Json::parse(req.body, nullptr, false) : Json();
    if (!s.ok() || j.is_discarded() || !j.is_object()) return resp->Send(StatusReply(BadJson()));
    for (int k = 0; k < 3; ++k) {
      if (j.contains(kTypeNames[k])) AddNames(j[kTypeNames[k]], &names[k]);
    }
  } else {
    for (int k = 0; k < 3; ++k) SplitCommas(req.params.Get(kTypeNames[k]), &names[k]);
  }
  if (names[0].empty() && names[1].empty() && names[2].empty()) {
    return resp->Send(Reply::Error(400, "Missing values to assign UIDs"));
  }
  std::string body = "{";
  bool errors = false;
  for (int k = 0; k < 3; ++k) {
    if (names[k].empty()) continue;
    std::string ok, bad;
    for (const std::string& name : names[k]) {
      std::string* dst = &ok;
      std::string value;
      uint32_t uid = 0;
      bool created = false;
      const auto kind = static_cast<NameKind>(k);
      if (!ValidName(name)) {
        dst = &bad;
        value = "Invalid " + std::string(kTypeNames[k]) + " (\"" + name + "\"): illegal character";
      } else if (ctx->storage->LookupUid(kind, name, &uid).ok()) {
        dst = &bad;
        value = "Name already exists with UID: " + query::UidHex(uid);
      } else if (Status s = ctx->storage->AssignName(kind, name, &uid, &created); !s.ok()) {
        dst = &bad;
        value = s.ToString();
      } else {
        value = query::UidHex(uid);
      }
      dst->append(dst->empty() ? "" : ",");
      AppendJsonString(name, dst);
      dst->push_back(':');
      AppendJsonString(value, dst);
    }
    if (body.size() > 1) body.push_back(',');
    body.append("\"").append(kTypeNames[k]).append("\":{").append(ok).append("}");
    if (!bad.empty()) {
      errors = true;
      body.append(",\"").append(kTypeNames[k]).append("_errors\":{").append(bad).append("}");
    }
  }
  body.push_back('}');
  resp->Send(Reply::Json(std::move(body), errors ? 400 : 200));
}

// ---- meta fields (shared by uidmeta and tsmeta) ----

// The user-set fields a kind of meta object accepts.
const std::vector<std::string>& UidFields() {
  static const std::vector<std::string> f = {"displayName", "description", "notes", "custom"};
  return f;
}
const std::vector<std::string>& TsFields() {
  static const std::vector<std::string> f = {"displayName", "description", "notes", "custom",
                                             "units",       "dataType",    "retention", "max",
                                             "min"};
  return f;
}

// Reads the fields given in a body or (display_name, description, notes,
// units, data_type) query string into *given. False if the body is bad.
bool GivenFields(const Request& req, const std::vector<std::string>& allowed, Json* given) {
  *given = Json::object();
  if (!req.body.empty()) {
    if (!query::CheckJsonBounds(req.body).ok()) return false;
    const Json j = Json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return false;
    for (const std::string& f : allowed) {
      if (j.contains(f)) (*given)[f] = j[f];
    }
    return true;
  }
  const std::pair<const char*, const char*> qs[] = {{"display_name", "displayName"},
                                                    {"description", "description"},
                                                    {"notes", "notes"},
                                                    {"units", "units"},
                                                    {"data_type", "dataType"}};
  for (const auto& [param, field] : qs) {
    const std::string* v = req.params.Find(param);
    if (v == nullptr) continue;
    for (const std::string& f : allowed) {
      if (f == field) (*given)[f] = *v;
    }
  }
  return true;
}

Json StoredFields(const ServiceContext* ctx, const std::string& key) {
  std::string v;
  if (!ctx->meta->Get(key, &v)) return Json::object();
  Json j = Json::parse(v, nullptr, false);
  return j.is_object() ? j : Json::object();
}

// Applies a POST/PUT/DELETE to the stored fields at key. *unchanged: a
// POST/PUT gave no field, nothing was written (the caller answers 304).
Status UpdateFields(ServiceContext* ctx, const Request& req, const std::string& key,
                    const std::vector<std::string>& allowed, bool* unchanged) {
  *unchanged = false;
  if (req.method == Method::kDelete) {
    std::string v;
    return ctx->meta->Get(key, &v) ? ctx->meta->Delete(key) : Status::OK();
  }
  Json given;
  if (!GivenFields(req, allowed, &given)) return BadJson();
  if (given.empty()) {
    *unchanged = true;  // "No changes detected" (OpenTSDB answers 304)
    return Status::OK();
  }
  Json stored = req.method == Method::kPut ? Json::object() : StoredFields(ctx, key);
  for (auto it = given.begin(); it != given.end(); ++it) stored[it.key()] = it.value();
  return ctx->meta->Put(key, DumpJson(stored));
}

// Runs UpdateFields for a POST/PUT/DELETE and sends the replies that end
// the request there: an error, 304 when nothing changed, 204 for DELETE.
// Returns true when it answered; false means the caller sends the object.
bool AnsweredUpdate(ServiceContext* ctx, const Request& req, const std::string& key,
                    const std::vector<std::string>& allowed, const ResponderPtr& resp) {
  bool unchanged = false;
  const Status s = UpdateFields(ctx, req, key, allowed, &unchanged);
  if (!s.ok()) {
    resp->Send(StatusReply(s));
  } else if (unchanged) {
    Reply r;
    r.status = 304;
    resp->Send(std::move(r));
  } else if (req.method == Method::kDelete) {
    resp->Send(Reply::NoContent());
  } else {
    return false;
  }
  return true;
}

// Fills the defaults of a meta object and overlays the stored fields.
void Overlay(const Json& stored, const std::vector<std::string>& allowed, Json* out) {
  for (const std::string& f : allowed) {
    if (stored.contains(f)) (*out)[f] = stored[f];
  }
}

Json UidMetaJson(const ServiceContext* ctx, NameKind kind, uint32_t uid, const std::string& name) {
  Json j = Json::object();
  j["uid"] = query::UidHex(uid);
  std::string type = kTypeNames[static_cast<int>(kind)];
  for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  j["type"] = type;
  j["name"] = name;
  j["description"] = "";
  j["notes"] = "";
  j["created"] = 0;
  j["custom"] = nullptr;
  j["displayName"] = "";
  Overlay(StoredFields(ctx, "U" + std::to_string(static_cast<int>(kind)) + query::UidHex(uid)),
          UidFields(), &j);
  return j;
}

// ---- /api/uid/uidmeta ----

void HandleUidMeta(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  std::string uid_text(req.params.Get("uid")), type_text(req.params.Get("type"));
  if (!req.body.empty()) {
    const Json j = Json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return resp->Send(StatusReply(BadJson()));
    if (j.contains("uid") && j["uid"].is_string()) uid_text = j["uid"].get<std::string>();
    if (j.contains("type") && j["type"].is_string()) type_text = j["type"].get<std::string>();
  }
  if (uid_text.empty()) return resp->Send(Reply::Error(400, "Missing parameter <code>uid</code>"));
  if (type_text.empty()) return resp->Send(Reply::Error(400, "Missing parameter <code>type</code>"));
  NameKind kind;
  if (!ParseKind(type_text, &kind)) {
    return resp->Send(Reply::Error(400, "Invalid type requested: " + type_text));
  }
  uint32_t uid = 0;
  std::string name;
  if (!ParseUidHex(uid_text, &uid) || !ctx->storage->NameOfUid(kind, uid, &name).ok()) {
    return resp->Send(Reply::Error(404, "Could not find the requested UID",
                                   "No such unique ID for '" + type_text + "': " + uid_text));
  }
  if (req.method != Method::kGet) {
    const std::string key = "U" + std::to_string(static_cast<int>(kind)) + query::UidHex(uid);
    if (AnsweredUpdate(ctx, req, key, UidFields(), resp)) return;
  }
  resp->Send(Reply::Json(DumpJson(UidMetaJson(ctx, kind, uid, name))));
}

// ---- /api/uid/tsmeta ----

// Sundial's series id for an upper-case TSUID, by its metric's series.
bool FindSeries(ServiceContext* ctx, const std::string& tsuid, SeriesId* id,
                storage::SeriesKey* key) {
  uint32_t metric_uid = 0;
  std::string metric;
  if (tsuid.size() < 6 || !ParseUidHex(tsuid.substr(0, 6), &metric_uid) ||
      !ctx->storage->NameOfUid(NameKind::kMetric, metric_uid, &metric).ok()) {
    return false;
  }
  for (SeriesId s : ctx->storage->SeriesOfMetric(metric)) {
    if (ctx->storage->GetSeriesKey(s, key).ok() && query::TsuidOf(*key) == tsuid) {
      *id = s;
      return true;
    }
  }
  return false;
}

Json TsMetaJson(ServiceContext* ctx, const std::string& tsuid, SeriesId id,
                const storage::SeriesKey& key) {
  Json j = Json::object();
  j["tsuid"] = tsuid;
  j["metric"] = UidMetaJson(ctx, NameKind::kMetric, key.metric_uid, key.metric);
  Json tags = Json::array();
  for (size_t i = 0; i < key.tags.size(); ++i) {
    tags.push_back(UidMetaJson(ctx, NameKind::kTagKey, key.tag_uids[i].first, key.tags[i].first));
    tags.push_back(
        UidMetaJson(ctx, NameKind::kTagValue, key.tag_uids[i].second, key.tags[i].second));
  }
  j["tags"] = std::move(tags);
  j["description"] = "";
  j["notes"] = "";
  j["created"] = 0;
  j["units"] = "";
  j["retention"] = 0;
  j["max"] = "NaN";
  j["min"] = "NaN";
  j["displayName"] = "";
  j["dataType"] = "";
  j["custom"] = nullptr;
  Sample last;
  const bool has_last = ctx->storage->LastPoint(id, &last).ok();
  j["lastReceived"] = has_last ? last.t / 1000 : 0;
  j["totalDatapoints"] = 0;
  Overlay(StoredFields(ctx, "T" + tsuid), TsFields(), &j);
  return j;
}

// GET ?m=metric{k=v,...}: the TS meta of every series of metric whose tags
// include the given ones (OpenTSDB's TSUIDQuery over the meta table).
void TsMetaByQuery(ServiceContext* ctx, std::string_view m, const ResponderPtr& resp) {
  const size_t brace = m.find('{');
  const std::string metric(m.substr(0, brace));
  std::vector<std::pair<std::string, std::string>> want;
  if (brace != std::string_view::npos) {
    if (m.back() != '}') return resp->Send(Reply::Error(400, "Missing the closing brace"));
    std::vector<std::string> parts;
    SplitCommas(m.substr(brace + 1, m.size() - brace - 2), &parts);
    for (const std::string& p : parts) {
      const size_t eq = p.find('=');
      if (eq == std::string::npos) {
        return resp->Send(Reply::Error(400, "Invalid tag: " + p));
      }
      want.emplace_back(p.substr(0, eq), p.substr(eq + 1));
    }
  }
  uint32_t uid = 0;
  if (!ctx->storage->LookupUid(NameKind::kMetric, metric, &uid).ok()) {
    return resp->Send(StatusReply(query::NoSuchName("metrics", metric)));
  }
  Json out = Json::array();
  storage::SeriesKey key;
  for (SeriesId id : ctx->storage->SeriesOfMetric(metric)) {
    if (!ctx->storage->GetSeriesKey(id, &key).ok()) continue;
    bool ok = true;
    for (const auto& [k, v] : want) {
      bool found = false;
      for (const auto& t : key.tags) found = found || (t.first == k && (v == "*" || t.second == v));
      ok = ok && found;
    }
    if (ok) out.push_back(TsMetaJson(ctx, query::TsuidOf(key), id, key));
  }
  resp->Send(Reply::Json(DumpJson(out)));
}

void HandleTsMeta(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  std::string tsuid_text(req.params.Get("tsuid"));
  if (req.method == Method::kGet && tsuid_text.empty() && req.params.Has("m")) {
    return TsMetaByQuery(ctx, req.params.Get("m"), resp);
  }
  if (!req.body.empty()) {
    const Json j = Json::parse(req.body, nullptr, false);
    if (j.is_discarded() || !j.is_object()) return resp->Send(StatusReply(BadJson()));
    if (j.contains("tsuid") && j["tsuid"].is_string()) tsuid_text = j["tsuid"].get<std::string>();
  }
  if (tsuid_text.empty()) {
    return resp->Send(Reply::Error(400, "Missing parameter <code>tsuid</code>"));
  }
  std::string tsuid;
  SeriesId id = 0;
  storage::SeriesKey key;
  if (!query::NormalizeTsuid(tsuid_text, &tsuid).ok() || !FindSeries(ctx, tsuid, &id, &key)) {
    return resp->Send(Reply::Error(404, "Could not find Timeseries meta data"));
  }
  if (req.method != Method::kGet) {
    if (AnsweredUpdate(ctx, req, "T" + tsuid, TsFields(), resp)) return;
  }
  resp->Send(Reply::Json(DumpJson(TsMetaJson(ctx, tsuid, id, key))));
}

// ---- /api/uid/rename ----

// GET ?metric=<old>&name=<new> (or tagk=/tagv=), POST the same as a JSON
// object. The uid keeps its series and points; only its name changes.
void HandleRename(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  std::vector<std::pair<std::string, std::string>> source;
  if (!req.body.empty()) {
    const Json j = query::CheckJsonBounds(req.body).ok() ? Json::parse(req.body, nullptr, false)
                                                         : Json();
    if (j.is_discarded() || !j.is_object()) return resp->Send(StatusReply(BadJson()));
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.value().is_string()) source.emplace_back(it.key(), it.value().get<std::string>());
    }
  } else {
    for (const auto& kv : req.params.items()) source.push_back(kv);
  }
  std::string type, from, to;
  for (const auto& [k, v] : source) {
    if (k == "name") {
      to = v;
    } else if (k == "metric" || k == "tagk" || k == "tagv") {
      type = k;
      from = v;
    }
  }
  if (type.empty() || from.empty() || to.empty()) {
    return resp->Send(Reply::Error(400, "Missing necessary values to rename UID"));
  }
  NameKind kind;
  (void)ParseKind(type, &kind);
  std::string error;
  if (!ValidName(to)) {
    error = "Invalid " + type + " (\"" + to + "\"): illegal character";
  } else if (Status s = ctx->storage->RenameName(kind, from, to); s.IsNotFound()) {
    error = "No such name for '" + std::string(kind == NameKind::kMetric ? "metrics" : type) +
            "': '" + from + "'";
  } else if (s.IsInvalidArgument()) {
    error = "An UID with name " + to + " for " +
            (kind == NameKind::kMetric ? "metrics" : type) + " already exists";
  } else if (!s.ok()) {
    return resp->Send(StatusReply(s));
  }
  if (error.empty()) return resp->Send(Reply::Json(R"({"result":"true"})"));
  std::string body = R"({"result":"false","error":)";
  AppendJsonString(error, &body);
  body.push_back('}');
  resp->Send(Reply::Json(std::move(body), 400));
}

void HandleUid(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  const std::string& rest = req.route_rest;
  if (rest == "assign") {
    if (req.method != Method::kGet && req.method != Method::kPost) {
      return resp->Send(Reply::MethodNotAllowed(http::MethodName(req.method)));
    }
    return HandleAssign(ctx, req, resp);
  }
  if (rest == "uidmeta") return HandleUidMeta(ctx, req, resp);
  if (rest == "tsmeta") return HandleTsMeta(ctx, req, resp);
  if (rest == "rename") {
    if (req.method != Method::kGet && req.method != Method::kPost) {
      return resp->Send(Reply::MethodNotAllowed(http::MethodName(req.method)));
    }
    return HandleRename(ctx, req, resp);
  }
  resp->Send(Reply::Error(404, "Other UID endpoints have not been implemented yet"));
}

}  // namespace

void RegisterUidRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet, Method::kPost, Method::kPut, Method::kDelete}, "/api/uid",
              OnMetaWorkers(ctx, HandleUid));
}

}  // namespace sundial::server
