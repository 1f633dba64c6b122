// PutJsonParser: the body of POST /api/put (opentsdb-compat.md §4.1).
//
// Wire format (OpenTSDB 2.4 /api/put, version 1): after trimming whitespace
// the body is one data point object or an array of them (null elements
// allowed). Content after the first complete JSON value is ignored, as
// Jackson does. A data point object:
//   {"metric": <string|number|bool|null>,
//    "timestamp": <integer|float (truncated)|numeric string|null>,
//    "value": <number (its text is kept)|string|bool|null>,
//    "tags": {<string>: <string|number|bool|null>, ...} | null,
//    <any other field: ignored>}
// Numbers may also be the tokens NaN, Infinity, +Infinity, -Infinity, +INF,
// -INF (Jackson's ALLOW_NON_NUMERIC_NUMBERS). Any JSON error, or a field of a
// type that cannot be coerced, rejects the whole body.
//
// Why not a DOM library: a DOM allocates a node per field and loses the text
// of numbers, which decides int vs float typing (§2.4). This parser makes no
// allocation per point in the common case: strings without escapes are views
// into the body; only escaped strings are decoded into an owned arena.
//
// Why two passes of code: nearly every body a client sends is an array of
// objects whose fields are "metric" (a plain string), "timestamp" (plain
// digits), "value" (a JSON number) and "tags" (an object of plain strings),
// each at most once. Such a body is read by a single-pass scanner for just
// that shape (put_json_fast.cc); on the first byte it was not made for, it
// gives up and the general parser reads the whole body again. Both produce
// the same points, tags and errors for every body (the fast scanner only
// ever accepts, never rejects).
//
// Thread-safety: not thread-safe; reuse one per connection.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/json_escape.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

// One data point object as written. Views point into the body or into the
// parser's arena and stay valid until the next Parse().
struct JsonPutPoint {
  bool is_null = false;          // the array element was null
  bool has_metric = false;       // false if absent or null
  bool has_value = false;        // false if absent or null
  bool has_tags = false;         // false if absent or null
  int64_t timestamp = 0;         // 0 if absent or null (Jackson's default)
  std::string_view metric;
  std::string_view value;        // text of the number, or the string
  std::string_view tags_raw;     // the tags object's JSON text (cache key)
  uint32_t tags_begin = 0;       // index into the parser's tags()
  uint32_t tags_count = 0;       // pairs as written, repeated keys included
};

class PutJsonParser {
 public:
  // common_shape_fast: use the single-pass scanner first (see above); off
  // only to compare the two in tests.
  explicit PutJsonParser(bool common_shape_fast = true) : fast_(common_shape_fast) {}
  PutJsonParser(const PutJsonParser&) = delete;
  PutJsonParser& operator=(const PutJsonParser&) = delete;

  // Parses body. On success returns true and fills points() and tags().
  // Otherwise returns false with *message set to OpenTSDB's text ("Missing
  // request content", "The JSON must start as an object or an array" or
  // "Unable to parse the given JSON") and *details to the parser's
  // explanation (may be empty).
  bool Parse(std::string_view body, std::string* message, std::string* details);

  const std::vector<JsonPutPoint>& points() const { return points_; }
  // True if the last Parse() was done by the single-pass scanner alone.
  bool last_parse_fast() const { return last_fast_; }
  // Tags of all points; a null tag value is a view with data() == nullptr.
  const std::vector<storage::TagRef>& tags() const { return tags_; }

 private:
  class Reader;

  // The single-pass scanner: true if content (trimmed, starting with '[')
  // had the common shape throughout and points_/tags_ hold its points;
  // false otherwise, leaving points_/tags_ to be cleared.
  bool ParseCommonShape(std::string_view content);

  const bool fast_;
  bool last_fast_ = false;
  std::vector<JsonPutPoint> points_;
  std::vector<storage::TagRef> tags_;
  std::deque<std::string> arena_;  // decoded strings that had escapes
};

// The point's tags as Jackson's HashMap holds them: a repeated key keeps
// its first position and takes its last value. *out is cleared first.
void DistinctTags(const JsonPutPoint& point, const std::vector<storage::TagRef>& tags,
                  std::vector<storage::TagRef>* out);

// Echoes a data point as OpenTSDB's /api/put "details" do: null fields are
// left out, "timestamp" is always present and "value" is always a string.
void AppendJsonPutPoint(const JsonPutPoint& point, const std::vector<storage::TagRef>& tags,
                        std::string* out);

}  // namespace sundial::ingest
