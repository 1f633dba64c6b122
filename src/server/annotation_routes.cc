// /api/annotation (alias /api/annotations) and /api/annotation/bulk
// (opentsdb-compat.md §6.6; OpenTSDB's AnnotationRpc). Every handler runs
// on the worker pool: a change is fsynced before it is answered.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "routes.h"
#include "server_json.h"
#include "sundial/query/annotations.h"
#include "sundial/query/json_format.h"
#include "sundial/query/json_limits.h"
#include "sundial/query/time_util.h"
#include "wall_clock.h"

namespace sundial::server {
namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;
using query::Annotation;
using query::AnnotationFields;
using Json = nlohmann::json;

// OpenTSDB's DateTime.parseDateTimeString: relative ("1h-ago"), absolute or
// unix seconds/ms. Empty gives 0 (OpenTSDB returns -1 there; both fail the
// "< 1" checks).
Status ParseTime(std::string_view s, Timestamp* ms) {
  *ms = 0;
  if (s.empty()) return Status::OK();
  return query::ParseDateTime(s, NowMs(), query::TimeZone(), ms);
}

// An annotation from the query string (AnnotationRpc.parseQS): times are
// truncated to seconds, custom cannot be given this way.
Status ParseQs(const Request& req, Annotation* a, AnnotationFields* f) {
  SUNDIAL_RETURN_IF_ERROR(query::NormalizeTsuid(req.params.Get("tsuid"), &a->tsuid));
  Timestamp start = 0, end = 0;
  SUNDIAL_RETURN_IF_ERROR(ParseTime(req.params.Get("start_time"), &start));
  if (start < 1) return Status::InvalidArgument("Missing start time");
  a->start_time = start / 1000;
  if (const std::string* e = req.params.Find("end_time")) {
    SUNDIAL_RETURN_IF_ERROR(ParseTime(*e, &end));
    a->end_time = end / 1000;
    f->end_time = true;
  }
  if (const std::string* d = req.params.Find("description")) {
    a->description = *d;
    f->description = true;
  }
  if (const std::string* n = req.params.Find("notes")) {
    a->notes = *n;
    f->notes = true;
  }
  return Status::OK();
}

Reply AnnotationReply(const Annotation& a) {
  std::string body;
  query::AppendAnnotationJson(a, &body);
  return Reply::Json(std::move(body));
}

void HandleOne(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  query::AnnotationStore* store = ctx->annotations;
  Annotation note;
  AnnotationFields fields;
  Status s = !req.body.empty() ? query::ParseAnnotationJson(req.body, &note, &fields)
                               : ParseQs(req, &note, &fields);
  if (!s.ok()) return resp->Send(StatusReply(s));
  if (req.method == Method::kGet) {
    Annotation stored;
    s = store->Get(note.tsuid, note.start_time, &stored);
    return resp->Send(s.ok() ? AnnotationReply(stored) : StatusReply(s));
  }
  if (req.method == Method::kDelete) {
    s = store->Delete(note.tsuid, note.start_time);
    if (s.IsInvalidArgument()) {
      return resp->Send(Reply::Error(400, "Unable to delete Annotation information", s.message()));
    }
    return resp->Send(s.ok() ? Reply::NoContent() : StatusReply(s));
  }
  // POST merges, PUT replaces (Annotation.syncToStorage).
  if (note.start_time < 1) {
    return resp->Send(Reply::Error(400, "The start timestamp has not been set"));
  }
  if (!fields.any()) {
    Reply r;
    r.status = 304;  // "No changes detected in Annotation data"
    return resp->Send(std::move(r));
  }
  Annotation stored;
  s = store->Sync(note, fields, req.method == Method::kPut, &stored);
  resp->Send(s.ok() ? AnnotationReply(stored) : StatusReply(s));
}

void HandleBulkUpdate(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  std::vector<Annotation> notes;
  std::vector<AnnotationFields> fields;
  Status s = query::ParseAnnotationsJson(req.body, &notes, &fields);
  if (!s.ok()) return resp->Send(StatusReply(s));
  std::vector<Annotation> todo;
  std::vector<AnnotationFields> todo_fields;
  for (size_t i = 0; i < notes.size(); ++i) {
    if (notes[i].start_time < 1) {
      std::string details = "Annotation error: ";
      query::AppendAnnotationJson(notes[i], &details);
      return resp->Send(Reply::Error(400, "The start timestamp has not been set", details));
    }
    if (!fields[i].any()) continue;  // no changes: skipped, as OpenTSDB does
    todo.push_back(std::move(notes[i]));
    todo_fields.push_back(fields[i]);
  }
  std::vector<Annotation> stored;
  s = ctx->annotations->SyncAll(todo, todo_fields, req.method == Method::kPut, &stored);
  if (!s.ok()) return resp->Send(StatusReply(s));
  std::string body = "[";
  for (size_t i = 0; i < stored.size(); ++i) {
    if (i) body.push_back(',');
    query::AppendAnnotationJson(stored[i], &body);
  }
  body.push_back(']');
  resp->Send(Reply::Json(std::move(body)));
}

// The AnnotationBulkDelete request from a JSON body or the query string.
struct BulkDelete {
  std::string start, end;
  bool has_tsuids = false;
  std::vector<std::string> tsuids;
  bool global = false;
};

Status ParseBulkDelete(const Request& req, BulkDelete* d) {
  if (req.body.empty()) {
    d->start = std::string(req.params.Get("start_time"));
    d->end = std::string(req.params.Get("end_time"));
    if (const std::string* t = req.params.Find("tsuids")) {
      d->has_tsuids = true;
      size_t s = 0;
      for (size_t i = 0; i <= t->size(); ++i) {
        if (i == t->size() || (*t)[i] == ',') {
          if (i > s) d->tsuids.push_back(t->substr(s, i - s));
          s = i + 1;
        }
      }
    }
    d->global = req.params.Has("global");
    return Status::OK();
  }
  SUNDIAL_RETURN_IF_ERROR(query::CheckJsonBounds(req.body));
  const Json j = Json::parse(req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return BadJson();
  const auto text = [&j](const char* k, std::string* out) {
    if (!j.contains(k) || j[k].is_null()) return true;
    if (j[k].is_string()) *out = j[k].get<std::string>();
    else if (j[k].is_number_integer()) *out = std::to_string(j[k].get<int64_t>());
    else return false;
    return true;
  };
  if (!text("startTime", &d->start) || !text("endTime", &d->end)) return BadJson();
  if (j.contains("tsuids") && j["tsuids"].is_array()) {
    d->has_tsuids = true;
    for (const Json& t : j["tsuids"]) {
      if (!t.is_string()) return BadJson();
      d->tsuids.push_back(t.get<std::string>());
    }
  }
  if (j.contains("global") && j["global"].is_boolean()) d->global = j["global"].get<bool>();
  return Status::OK();
}

void HandleBulkDelete(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  BulkDelete d;
  Status s = ParseBulkDelete(req, &d);
  if (!s.ok()) return resp->Send(StatusReply(s));
  if (d.start.empty()) return resp->Send(Reply::Error(400, "Missing the start time value"));
  if (!d.global && d.tsuids.empty()) {
    return resp->Send(Reply::Error(400, "Missing the TSUIDs or global annotations flag"));
  }
  Timestamp start = 0, end = 0;
  s = ParseTime(d.start, &start);
  if (s.ok() && !d.end.empty()) s = ParseTime(d.end, &end);
  if (d.end.empty()) end = NowMs();
  std::vector<std::string> tsuids(d.tsuids.size());
  for (size_t i = 0; s.ok() && i < d.tsuids.size(); ++i) {
    s = query::NormalizeTsuid(d.tsuids[i], &tsuids[i]);
  }
  uint64_t deleted = 0;
  if (s.ok() && d.global) s = ctx->annotations->DeleteRange("", start, end, &deleted);
  for (size_t i = 0; s.ok() && i < tsuids.size(); ++i) {
    if (!tsuids[i].empty()) s = ctx->annotations->DeleteRange(tsuids[i], start, end, &deleted);
  }
  if (!s.ok()) return resp->Send(StatusReply(s));
  std::string body = "{\"tsuids\":";
  if (!d.has_tsuids) {
    body.append("null");
  } else {
    body.push_back('[');
    for (size_t i = 0; i < d.tsuids.size(); ++i) {
      if (i) body.push_back(',');
      AppendJsonString(d.tsuids[i], &body);
    }
    body.push_back(']');
  }
  body.append(",\"global\":");
  body.append(d.global ? "true" : "false");
  body.append(",\"startTime\":");
  query::AppendInt(start, &body);
  body.append(",\"endTime\":");
  query::AppendInt(end, &body);
  body.append(",\"totalDeleted\":");
  query::AppendInt(static_cast<int64_t>(deleted), &body);
  body.push_back('}');
  resp->Send(Reply::Json(std::move(body)));
}

void HandleAnnotation(ServiceContext* ctx, const Request& req, const ResponderPtr& resp) {
  if (req.route_rest.empty()) return HandleOne(ctx, req, resp);
  if (req.route_rest != "bulk") return resp->Send(Reply::EndpointNotFound());
  switch (req.method) {
    case Method::kPost:
    case Method::kPut: return HandleBulkUpdate(ctx, req, resp);
    case Method::kDelete: return HandleBulkDelete(ctx, req, resp);
    default: return resp->Send(Reply::MethodNotAllowed(http::MethodName(req.method)));
  }
}

}  // namespace

void RegisterAnnotationRoutes(ServiceContext* ctx, http::Router* router) {
  const http::MethodSet all = {Method::kGet, Method::kPost, Method::kPut, Method::kDelete};
  const http::Handler h = OnMetaWorkers(ctx, HandleAnnotation);
  router->Add(all, "/api/annotation", h);
  router->Add(all, "/api/annotations", h);
}

}  // namespace sundial::server
