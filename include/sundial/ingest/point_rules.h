// The validation core shared by the telnet `put` parser and the /api/put JSON
// parser: number parsing, name characters and the per-point checks that
// OpenTSDB runs inside TSDB.addPoint (opentsdb-compat.md §2.2 rows 8-14,
// §2.4, §2.5). Each protocol does its own framing and its own early checks
// (§2.2 rows 1-7, §4.3 first rows) and then calls these, so that both reject
// exactly the same points with exactly the same texts.
//
// Texts are OpenTSDB's exception messages without the "put: ..." prefix that
// the telnet protocol adds; the JSON protocol puts them in "details".
//
// Thread-safety: all functions are pure; a PointRules object is immutable
// after construction and may be shared by threads.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/types.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

// Why a point was rejected; decides the telnet prefix and the stats counter.
enum class PutErrorKind : uint8_t {
  kInvalidValue,     // a number did not parse: "put: invalid value: <msg>"
  kIllegalArgument,  // any other check: "put: illegal argument: <msg>"
  kUnknownMetric,    // auto-create off: "put: unknown metric: <msg>"
  kStorage,          // storage refused the batch: "put: HBase error: <msg>"
};

struct PutError {
  PutErrorKind kind = PutErrorKind::kIllegalArgument;
  std::string message;
};

// A value as parsed from its text. fits_float32 records whether OpenTSDB
// would have stored it on 4 bytes (Tags.fitsInFloat); it only shapes the
// text of the bad-timestamp error.
struct ParsedValue {
  Value value;
  bool fits_float32 = false;
};

// In a TagRef, a value whose data() is nullptr stands for JSON null (only the
// JSON parser produces it); an empty non-null view is the empty string.
inline bool IsNullTagValue(std::string_view v) { return v.data() == nullptr; }

// Java's Tags.parseLong: optional sign, at most 19 digits, int64 range.
// On failure returns false and sets *error to the NumberFormatException
// message ("Invalid character 'x' in <s>", "Value too long: <s>", "Just a
// sign, no value: <s>", "Empty string", "Overflow in <s>").
bool ParseJavaLong(std::string_view s, int64_t* out, std::string* error);

// The value rule of §2.4: text without '.', 'e' or 'E' is an int64 parsed
// with ParseJavaLong; anything else is a decimal float in the strtod grammar
// (optional sign, digits with an optional point, optional exponent, an
// optional Java f/F/d/D suffix). NaN, Inf and hex floats are rejected. An
// overflowing float parses to +-Infinity (PointRules rejects it, row 9).
// On failure sets *error to the NumberFormatException message.
bool ParseValue(std::string_view text, ParsedValue* out, std::string* error);

// The character rule for metric names, tag keys and tag values: a-z A-Z 0-9
// - _ . /, Unicode letters, and the configured special characters. Text is
// decoded as UTF-8; a byte that does not start a valid sequence is taken as
// a Latin-1 character (OpenTSDB reads the line protocol as Latin-1).
class NameRules {
 public:
  explicit NameRules(std::string_view allow_specialchars);

  // True if s is non-empty and every character is allowed.
  bool Valid(std::string_view s) const;
  // OpenTSDB's Tags.validateString: true if valid, otherwise false with
  // *error = "Invalid <what> (\"<s>\"): illegal character: <c>",
  // "Invalid <what>: empty string" or "Invalid <what>: null".
  bool Validate(std::string_view what, std::string_view s, std::string* error) const;

 private:
  bool AllowedCodePoint(uint32_t cp) const;

  std::bitset<256> ascii_ok_;          // bytes < 0x80 that are allowed
  std::vector<uint32_t> extra_;        // allowed special chars >= 0x80
};

// The checks of TSDB.addPoint, in OpenTSDB's order.
class PointRules {
 public:
  explicit PointRules(const IngestOptions& options);

  // Rows 9 and 10: a float value must be finite; a timestamp must be >= 0
  // and, if it does not fit in 32 bits (milliseconds), <= 9999999999999.
  // ts is the timestamp as written (seconds or milliseconds).
  bool CheckValueAndTimestamp(std::string_view metric, int64_t ts, const ParsedValue& v,
                              const storage::TagRef* tags, size_t num_tags,
                              PutError* error) const;

  // Rows 11-14: 1..max_tags tags (0..max_tags when !require_tag), then the
  // metric's characters, then each tag's key and value characters in Java
  // HashMap iteration order. REQUIRES: tag keys are distinct.
  bool CheckMetricAndTags(std::string_view metric, const storage::TagRef* tags,
                          size_t num_tags, PutError* error, bool require_tag = true) const;

  // The relaxed check for protocols whose names are not OpenTSDB's (line
  // protocol): 0..max_tags tags (1..max_tags if require_tag), and every
  // name non-empty without ASCII control characters; any other byte is
  // allowed. Errors are kIllegalArgument in the texts above, or
  // "Invalid <what> (\"<s>\"): control character".
  bool CheckTagCountAndText(std::string_view metric, const storage::TagRef* tags,
                            size_t num_tags, PutError* error, bool require_tag) const;

  size_t max_tags() const { return max_tags_; }
  const NameRules& names() const { return names_; }

 private:
  const size_t max_tags_;
  const NameRules names_;
};

// Java's HashMap<String,String>.toString() of the tags inserted in the given
// order: "{k1=v1, k2=v2}" in HashMap iteration order, JSON null as "null".
// REQUIRES: tag keys are distinct.
std::string FormatJavaTagMap(const storage::TagRef* tags, size_t num_tags);

// The order in which a Java HashMap filled with these keys (in this order)
// iterates them: a permutation of 0..num_tags-1.
std::vector<size_t> JavaHashMapOrder(const storage::TagRef* tags, size_t num_tags);

// Epoch milliseconds of a put timestamp: values that fit in 32 bits are
// seconds (OpenTSDB's SECOND_MASK rule), larger ones milliseconds.
// REQUIRES: ts passed CheckValueAndTimestamp.
inline Timestamp PutTimestampToMs(int64_t ts) {
  return (static_cast<uint64_t>(ts) & 0xFFFFFFFF00000000ull) == 0 ? ts * 1000 : ts;
}

// Appends {id, t, v} to batch field by field. Why not push_back of a
// SeriesPoint built on the stack: a parsed value was just stored there in
// pieces, and copying it as one 16-byte block stalls on store forwarding.
inline void AddPoint(std::vector<storage::SeriesPoint>* batch, SeriesId id, Timestamp t,
                     const Value& v) {
  storage::SeriesPoint& p = batch->emplace_back();
  p.series = id;
  p.t = t;
  p.v = v.is_int() ? Value::Int(v.int_value()) : Value::Float(v.float_value());
}

}  // namespace sundial::ingest
