// LineProtocolParser: one line of the InfluxDB line protocol (v1.8 / v2).
//
// Wire format (InfluxDB line protocol, as models/points.go of InfluxDB 1.8
// parses it):
//
//   <measurement>[,<tag_key>=<tag_value>...] <field_key>=<field_value>[,...] [<timestamp>]
//
//  - measurement: any bytes up to the first unescaped ',' or ' '; it may not
//    start with ','. Escapes: "\," and "\ " (other backslashes are literal).
//  - tags: key=value pairs, each non-empty; keys and values escape "\,",
//    "\=" and "\ ". An unescaped '=' in a value is an error; a repeated key
//    is an error ("duplicate tags").
//  - fields (at least one), separated by ','; keys escape like tag keys.
//    Values: float (123, -1.5, 1e3, .5; NaN and Inf are refused), integer
//    (123i), unsigned (123u), boolean (t T true True TRUE f F false False
//    FALSE), or a string in double quotes in which "\"" and "\\" are escapes
//    (a string may span lines; see SplitLineProtocolLine).
//  - timestamp: an optional integer (a leading '-' allowed), in the unit of
//    the request's precision. Only spaces may follow it.
// Leading spaces/tabs are skipped; a trailing '\r' is ignored.
//
// Why in place: a line is scanned once and every text the caller needs is a
// view into it (keys as written, escapes kept, which is also what the
// series cache keys on). Unescaped names are produced only by DecodeSeries
// and UnescapeKey, which a caller runs on a series-cache miss. Nothing is
// allocated per line once the parser's vectors have grown.
//
// Errors are InfluxDB's reason texts ("missing fields", "invalid number",
// "unbalanced quotes", "bad timestamp", ...), static strings.
//
// Thread-safety: not thread-safe; one per connection or handler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/types.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

enum class LineFieldType : uint8_t { kFloat, kInteger, kUnsigned, kBoolean, kString };

struct LineField {
  std::string_view key;   // as written (escapes kept)
  LineFieldType type = LineFieldType::kFloat;
  // kFloat: Float; kInteger: Int; kUnsigned: Int when <= INT64_MAX, else the
  // nearest Float; kBoolean: Int 1 or 0; kString: unset.
  Value value;
  std::string_view text;  // kString: the contents between the quotes, as written
};

// Timestamp units of /write's precision parameter.
enum class Precision : uint8_t { kNanosecond, kMicrosecond, kMillisecond, kSecond, kMinute, kHour };

// Parses a precision: "" / "n" / "ns" (nanoseconds), "u" / "us" / "µ",
// "ms", "s", "m", "h". False for anything else.
bool ParsePrecision(std::string_view text, Precision* out);

// Converts a timestamp in unit p to epoch milliseconds, truncating finer
// units toward negative infinity (1999999 ns -> 1 ms, -1 ns -> -1 ms).
// False if the instant is outside InfluxDB's range (int64 nanoseconds).
bool PrecisionToMs(int64_t ts, Precision p, int64_t* ms);

class LineProtocolParser {
 public:
  LineProtocolParser() = default;
  LineProtocolParser(const LineProtocolParser&) = delete;
  LineProtocolParser& operator=(const LineProtocolParser&) = delete;

  // Parses one line (without its '\n'). On success fills series(),
  // measurement(), fields() and the timestamp; views point into line and
  // stay valid while it does. On failure returns false with *error set to a
  // static reason text. REQUIRES: the line is neither blank nor a comment
  // (see IsBlankOrComment).
  bool Parse(std::string_view line, const char** error);

  // "measurement[,k=v...]" as written: identifies the series of every field.
  std::string_view series() const { return series_; }
  std::string_view measurement() const { return measurement_; }
  const std::vector<LineField>& fields() const { return fields_; }
  bool has_timestamp() const { return has_timestamp_; }
  int64_t timestamp() const { return timestamp_; }

  // Unescapes the measurement into *measurement and the tags into *tags
  // (views into the parser's own buffer, valid until the next Parse or
  // DecodeSeries). False with *error = "duplicate tags" if a key repeats.
  bool DecodeSeries(std::string* measurement, std::vector<storage::TagRef>* tags,
                    const char** error);

  // Appends a tag or field key with its escapes ("\,", "\=", "\ ") removed.
  static void UnescapeKey(std::string_view raw, std::string* out);

 private:
  struct TagSpan {
    uint32_t key_begin, key_end, value_begin, value_end;
  };

  bool ParseTags(std::string_view line, size_t* pos, const char** error);
  bool ParseFields(std::string_view line, size_t* pos, const char** error);
  bool ParseValue(std::string_view line, size_t* pos, LineField* field, const char** error);
  bool ParseTimestamp(std::string_view line, size_t pos, const char** error);

  std::string_view line_;
  std::string_view series_;
  std::string_view measurement_;
  std::vector<TagSpan> tag_spans_;
  std::vector<LineField> fields_;
  bool has_timestamp_ = false;
  int64_t timestamp_ = 0;
  std::string decoded_;          // DecodeSeries' unescaped tags
  std::vector<size_t> offsets_;  // ends of each key and value in decoded_
};

// A cheap test for telnet-style connections, where line protocol shares the
// port with commands: true if the text after the line's first unescaped
// space starts a token holding '=' ("cpu,host=a value=1" yes; "foo bar",
// "Put x 1 1 a=b" no). The line may still fail to parse.
bool LooksLikeLineProtocol(std::string_view line);

// True if the line holds only spaces/tabs or its first other byte is '#'.
bool IsBlankOrComment(std::string_view line);

// The end of the line starting at body[pos]: the index of the '\n' that ends
// it (or body.size()). A '\n' inside a quoted string field value does not
// end a line, as in InfluxDB.
size_t FindLineEnd(std::string_view body, size_t pos);

}  // namespace sundial::ingest
