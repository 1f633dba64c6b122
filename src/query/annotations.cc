#include "sundial/query/annotations.h"

#include <nlohmann/json.hpp>

#include "sundial/common/json_escape.h"
#include "sundial/query/json_format.h"
#include "sundial/query/json_limits.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {
namespace {

using Json = nlohmann::json;

constexpr char kKeyPrefix = 'A';
constexpr uint64_t kSecondMask = 0xFFFFFFFF00000000ull;

// A JSON integer or a string holding one (Jackson coerces both).
bool AsInt64(const Json& v, int64_t* out) {
  if (v.is_number_integer()) {
    *out = v.get<int64_t>();
    return true;
  }
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(u);
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!(d >= -9.2e18 && d <= 9.2e18)) return false;
    *out = static_cast<int64_t>(d);
    return true;
  }
  if (v.is_string()) {
    const std::string& s = v.get_ref<const std::string&>();
    if (s.empty() || s.size() > 19) return false;
    int64_t n = 0;
    size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
      n = n * 10 + (s[i] - '0');
    }
    *out = s[0] == '-' ? -n : n;
    return true;
  }
  return v.is_null() ? (*out = 0, true) : false;
}

Status FieldError(const char* field) {
  return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                 kDetailsSeparator + "Invalid value for field '" + field + "'");
}

Status FromJson(const Json& j, Annotation* a, AnnotationFields* f) {
  if (!j.is_object()) return FieldError("annotation");
  *a = Annotation();
  *f = AnnotationFields();
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& k = it.key();
    const Json& v = it.value();
    if (k == "tsuid") {
      if (v.is_null()) continue;
      if (!v.is_string()) return FieldError("tsuid");
      SUNDIAL_RETURN_IF_ERROR(NormalizeTsuid(v.get_ref<const std::string&>(), &a->tsuid));
    } else if (k == "startTime") {
      if (!AsInt64(v, &a->start_time)) return FieldError("startTime");
    } else if (k == "endTime") {
      if (!AsInt64(v, &a->end_time)) return FieldError("endTime");
      f->end_time = true;
    } else if (k == "description" || k == "notes") {
      std::string* dst = k == "notes" ? &a->notes : &a->description;
      if (v.is_null()) continue;
      if (!v.is_string()) return FieldError(k.c_str());
      *dst = v.get<std::string>();
      (k == "notes" ? f->notes : f->description) = true;
    } else if (k == "custom") {
      f->custom = true;
      if (v.is_null()) continue;
      if (!v.is_object()) return FieldError("custom");
      a->has_custom = true;
      for (auto c = v.begin(); c != v.end(); ++c) {
        if (c.value().is_string()) {
          a->custom[c.key()] = c.value().get<std::string>();
        } else if (!c.value().is_null()) {
          a->custom[c.key()] = c.value().dump();
        }
      }
    }
    // Unknown fields are ignored (as OpenTSDB's lenient mapper does).
  }
  return Status::OK();
}

Status ParseBody(std::string_view body, Json* j) {
  if (body.empty()) return Status::InvalidArgument("Missing message content");
  SUNDIAL_RETURN_IF_ERROR(CheckJsonBounds(body));
  *j = Json::parse(body.begin(), body.end(), nullptr, false);
  if (j->is_discarded()) {
    return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                   kDetailsSeparator + "Malformed JSON in the request body");
  }
  return Status::OK();
}

void PutBigEndian64(uint64_t v, std::string* out) {
  for (int i = 7; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// Offset so that negative seconds still sort below positive ones.
constexpr uint64_t kBias = 1ull << 63;

}  // namespace

int64_t AnnotationSecond(int64_t t) {
  return (static_cast<uint64_t>(t) & kSecondMask) != 0 && t > 0 ? t / 1000 : t;
}

Status NormalizeTsuid(std::string_view in, std::string* out) {
  out->clear();
  if (in.size() % 2 != 0 || in.size() > 512) {
    return Status::InvalidArgument("Invalid TSUID: " + std::string(in.substr(0, 64)));
  }
  for (char c : in) {
    if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'))) {
      return Status::InvalidArgument("Invalid TSUID: " + std::string(in.substr(0, 64)));
    }
    out->push_back(c);
  }
  return Status::OK();
}

Status ParseAnnotationJson(std::string_view body, Annotation* out, AnnotationFields* fields) {
  Json j;
  SUNDIAL_RETURN_IF_ERROR(ParseBody(body, &j));
  return FromJson(j, out, fields);
}

Status ParseAnnotationsJson(std::string_view body, std::vector<Annotation>* out,
                            std::vector<AnnotationFields>* fields) {
  Json j;
  SUNDIAL_RETURN_IF_ERROR(ParseBody(body, &j));
  if (j.is_object()) j = Json::array({std::move(j)});
  if (!j.is_array()) return FieldError("annotations");
  out->resize(j.size());
  fields->resize(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    SUNDIAL_RETURN_IF_ERROR(FromJson(j[i], &(*out)[i], &(*fields)[i]));
  }
  return Status::OK();
}

void AppendAnnotationJson(const Annotation& a, std::string* out) {
  out->push_back('{');
  if (!a.tsuid.empty()) {
    out->append("\"tsuid\":");
    AppendJsonString(a.tsuid, out);
    out->push_back(',');
  }
  out->append("\"description\":");
  AppendJsonString(a.description, out);
  out->append(",\"notes\":");
  AppendJsonString(a.notes, out);
  out->append(",\"custom\":");
  if (!a.has_custom) {
    out->append("null");
  } else {
    out->push_back('{');
    bool first = true;
    for (const auto& [k, v] : a.custom) {
      if (!first) out->push_back(',');
      first = false;
      AppendJsonString(k, out);
      out->push_back(':');
      AppendJsonString(v, out);
    }
    out->push_back('}');
  }
  out->append(",\"endTime\":");
  AppendInt(a.end_time, out);
  out->append(",\"startTime\":");
  AppendInt(a.start_time, out);
  out->push_back('}');
}

std::string AnnotationStore::Key(std::string_view tsuid, int64_t second) {
  std::string k;
  k.reserve(tsuid.size() + 10);
  k.push_back(kKeyPrefix);
  k.append(tsuid);
  k.push_back('\0');
  PutBigEndian64(static_cast<uint64_t>(second) + kBias, &k);
  return k;
}

Status AnnotationStore::Get(std::string_view tsuid, int64_t start, Annotation* out) const {
  std::string value;
  if (!meta_->Get(Key(tsuid, AnnotationSecond(start)), &value)) {
    return Status::NotFound("Unable to locate annotation in storage");
  }
  AnnotationFields ignored;
  Status s = ParseAnnotationJson(value, out, &ignored);
  if (!s.ok()) return Status::Corruption("stored annotation unreadable", s.message());
  out->tsuid = std::string(tsuid);
  return Status::OK();
}

Status AnnotationStore::Sync(const Annotation& note, const AnnotationFields& fields, bool replace,
                             Annotation* stored) {
  std::vector<Annotation> out;
  SUNDIAL_RETURN_IF_ERROR(SyncAll({note}, {fields}, replace, &out));
  *stored = std::move(out.front());
  return Status::OK();
}

Status AnnotationStore::SyncAll(const std::vector<Annotation>& notes,
                                const std::vector<AnnotationFields>& fields, bool replace,
                                std::vector<Annotation>* stored) {
  std::vector<storage::MetaStore::Op> ops;
  stored->clear();
  for (size_t i = 0; i < notes.size(); ++i) {
    const Annotation& note = notes[i];
    if (note.start_time < 1) {
      return Status::InvalidArgument("The start timestamp has not been set");
    }
    Annotation merged = note;
    Annotation old;
    if (!replace && Get(note.tsuid, note.start_time, &old).ok()) {
      merged = old;
      const AnnotationFields& f = fields[i];
      if (f.end_time) merged.end_time = note.end_time;
      if (f.description) merged.description = note.description;
      if (f.notes) merged.notes = note.notes;
      if (f.custom) {
        merged.has_custom = note.has_custom;
        merged.custom = note.custom;
      }
    }
    std::string value;
    AppendAnnotationJson(merged, &value);
    ops.push_back({Key(note.tsuid, AnnotationSecond(note.start_time)), std::move(value), false});
    stored->push_back(std::move(merged));
  }
  return meta_->Apply(ops);
}

Status AnnotationStore::Delete(std::string_view tsuid, int64_t start) {
  if (start < 1) return Status::InvalidArgument("The start timestamp has not been set");
  std::string value;
  const std::string key = Key(tsuid, AnnotationSecond(start));
  if (!meta_->Get(key, &value)) return Status::OK();
  return meta_->Delete(key);
}

Status AnnotationStore::DeleteRange(std::string_view tsuid, Timestamp start_ms, Timestamp end_ms,
                                    uint64_t* deleted) {
  if (end_ms < start_ms) return Status::OK();
  const std::string begin = Key(tsuid, start_ms / 1000);
  const std::string end = Key(tsuid, end_ms / 1000 + 1);
  std::vector<storage::MetaStore::Op> ops;
  for (auto& kv : meta_->Range(begin, end)) ops.push_back({std::move(kv.first), {}, true});
  SUNDIAL_RETURN_IF_ERROR(meta_->Apply(ops));
  *deleted += ops.size();
  return Status::OK();
}

size_t AnnotationStore::AppendRange(std::string_view tsuid, Timestamp start_ms, Timestamp end_ms,
                                    std::string* out) const {
  if (end_ms < start_ms) return 0;
  // Seconds whose start lies in [start_ms, end_ms]: ceil(start), floor(end).
  const int64_t first = start_ms / 1000 + (start_ms % 1000 > 0 ? 1 : 0);
  const std::string begin = Key(tsuid, first);
  const std::string end = Key(tsuid, end_ms / 1000 + 1);
  size_t n = 0;
  for (const auto& kv : meta_->Range(begin, end)) {
    if (!out->empty() && out->back() == '}') out->push_back(',');
    out->append(kv.second);
    ++n;
  }
  return n;
}

bool AnnotationStore::HasSeriesAnnotations() const {
  // Global keys are "A\0...": any key above that range is a series'.
  const std::string after_global = std::string(1, kKeyPrefix) + std::string(1, '\x01');
  const std::string end(1, static_cast<char>(kKeyPrefix + 1));
  return meta_->Any(after_global, end);
}

}  // namespace sundial::query
