// Annotations: OpenTSDB's annotation objects (src/meta/Annotation.java),
// kept durably in a storage::MetaStore, with the create/merge/replace/delete
// rules of /api/annotation and the range reads /api/query needs.
//
// An annotation is identified by (tsuid, start second): tsuid "" is a
// global annotation; a start time is taken as milliseconds when it does not
// fit in 32 bits (OpenTSDB's SECOND_MASK rule), so 1369141261 and
// 1369141261000 name the same annotation, as they do in OpenTSDB.
//
// Store layout (MetaStore keys, version 1):
//   "A" + upper-case tsuid + '\0' + fixed 8-byte big-endian start second
// value: the annotation's JSON as /api/annotation prints it. The big-endian
// second keeps one series' annotations in time order.
//
// Thread-safety: AnnotationStore is thread-safe (the MetaStore is).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/storage/meta_store.h"

namespace sundial::query {

struct Annotation {
  std::string tsuid;  // "" = global
  int64_t start_time = 0;  // seconds (or ms) as the client gave it
  int64_t end_time = 0;
  std::string description;
  std::string notes;
  bool has_custom = false;  // false: "custom" is printed as null
  std::map<std::string, std::string> custom;
};

// Which fields a request set (POST merges only these).
struct AnnotationFields {
  bool end_time = false;
  bool description = false;
  bool notes = false;
  bool custom = false;
  bool any() const { return end_time || description || notes || custom; }
};

// The start second of a start time given in seconds or ms.
int64_t AnnotationSecond(int64_t t);

// Parses one annotation object from JSON text (/api/annotation body).
// InvalidArgument on malformed JSON or fields of the wrong type.
Status ParseAnnotationJson(std::string_view body, Annotation* out, AnnotationFields* fields);
// Parses a JSON array of annotation objects (/api/annotation/bulk body);
// a single object is taken as an array of one.
Status ParseAnnotationsJson(std::string_view body, std::vector<Annotation>* out,
                            std::vector<AnnotationFields>* fields);

// {"tsuid":..,"description":..,"notes":..,"custom":..,"endTime":..,"startTime":..}
// (tsuid omitted for a global annotation, as OpenTSDB's serializer omits
// nulls).
void AppendAnnotationJson(const Annotation& a, std::string* out);

class AnnotationStore {
 public:
  // meta is borrowed and must outlive this object.
  explicit AnnotationStore(storage::MetaStore* meta) : meta_(meta) {}
  AnnotationStore(const AnnotationStore&) = delete;
  AnnotationStore& operator=(const AnnotationStore&) = delete;

  // NotFound if there is no annotation (tsuid, start).
  Status Get(std::string_view tsuid, int64_t start, Annotation* out) const;

  // Creates or updates note. replace (PUT): every field comes from note;
  // otherwise (POST) only the fields in `fields` change a stored one.
  // InvalidArgument("The start timestamp has not been set") when
  // start_time < 1. A POST whose fields change nothing is the caller's to
  // answer (OpenTSDB: 304). *stored gets the annotation as now stored.
  Status Sync(const Annotation& note, const AnnotationFields& fields, bool replace,
              Annotation* stored);
  // Several at once, in one durable write (the bulk endpoint).
  Status SyncAll(const std::vector<Annotation>& notes,
                 const std::vector<AnnotationFields>& fields, bool replace,
                 std::vector<Annotation>* stored);

  // Deletes (tsuid, start); OK if it did not exist (as OpenTSDB).
  Status Delete(std::string_view tsuid, int64_t start);
  // Deletes the annotations of tsuid ("" = global) whose start second is in
  // [start_ms/1000, end_ms/1000]; adds the count to *deleted.
  Status DeleteRange(std::string_view tsuid, Timestamp start_ms, Timestamp end_ms,
                     uint64_t* deleted);

  // Appends the annotations of tsuid ("" = global) in the time range, as
  // JSON objects separated by commas (a leading comma when *out already
  // ends an object). Returns how many were appended.
  size_t AppendRange(std::string_view tsuid, Timestamp start_ms, Timestamp end_ms,
                     std::string* out) const;
  // True if any series (non-global) annotation exists: /api/query computes
  // TSUIDs for annotation lookups only then.
  bool HasSeriesAnnotations() const;

 private:
  static std::string Key(std::string_view tsuid, int64_t second);

  storage::MetaStore* const meta_;
};

// Upper-cases a TSUID and checks it is even-length hex ("" allowed).
Status NormalizeTsuid(std::string_view in, std::string* out);

}  // namespace sundial::query
