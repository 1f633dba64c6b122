// LineProtocolHandler: stores InfluxDB line protocol through the write path.
//
// Mapping: each numeric or boolean field of a line becomes one point of the
// series  <measurement><sep><field key>{<the line's tags>}  (sep is
// IngestOptions::influx_separator, "." by default; a line without tags
// makes series without tags). Floats stay floats, integers (i) and
// unsigned (u) integers are stored as integers (an unsigned above
// INT64_MAX as the nearest float), booleans as 1 / 0. String fields are
// skipped and counted (IngestStats::influx_string_fields); they do not make
// a line bad. Timestamps are converted from the request's precision to
// milliseconds (finer units truncated, see PrecisionToMs); a line without
// one gets the receive time. Names are taken as written (after unescaping),
// any bytes but ASCII control characters (NamePolicy::kPlainText).
//
// Lines are independent: a bad line is counted and reported, the good ones
// are stored. A bad line's text is InfluxDB's:
//   unable to parse '<line>': <reason>
//
// Thread-safety: not thread-safe; one per connection or borrowed handler.
// Storage, options, rules and stats are borrowed and must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/line_protocol_parser.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/point_writer.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

struct LineProtocolOutcome {
  size_t lines = 0;          // lines that were neither blank nor comments
  size_t bad_lines = 0;      // lines not (entirely) stored
  size_t points = 0;         // points stored (acknowledged by storage)
  size_t string_fields = 0;  // string fields skipped
  std::string first_error;   // "unable to parse '<line>': <reason>" of the first bad line
  // Non-ok when storage refused a batch; points then counts only the
  // batches stored before.
  Status storage_status;
};

class LineProtocolHandler {
 public:
  LineProtocolHandler(storage::Storage* storage, const IngestOptions* options,
                      const PointRules* rules, IngestStats* stats);
  LineProtocolHandler(const LineProtocolHandler&) = delete;
  LineProtocolHandler& operator=(const LineProtocolHandler&) = delete;

  // Stores every good line of body (an HTTP /write body) and flushes: when
  // it returns ok, the points are in the WAL. now_ms stamps lines without
  // a timestamp. Stops at the first storage failure.
  void HandleBody(std::string_view body, Precision precision, int64_t now_ms,
                  LineProtocolOutcome* out);

  // One line (without '\n'; not blank, not a comment), buffered; the caller
  // must Flush() before acknowledging. Returns false with *error set to the
  // line's error text when (part of) it was not stored. May flush by itself
  // when the batch is full.
  bool HandleLine(std::string_view line, Precision precision, int64_t now_ms,
                  std::string* error);

  // See PointWriter::Flush.
  Status Flush(size_t* points) { return writer_.Flush(points); }
  size_t pending() const { return writer_.pending(); }

 private:
  // Parses line and buffers its points without flushing.
  bool AddLine(std::string_view line, Precision precision, int64_t now_ms, std::string* error);
  void PublishStringFields();
  // Resolves the series of field f of the line just parsed; on failure sets
  // *reason. decoded_ caches the line's unescaped measurement and tags.
  SeriesId ResolveField(const LineField& f, std::string* reason);
  void SetError(std::string_view line, std::string_view reason, std::string* error);

  const IngestOptions* const options_;
  IngestStats* const stats_;
  PointWriter writer_;
  LineProtocolParser parser_;
  // Scratch for a series-cache miss, reused.
  bool decoded_ = false;
  std::string measurement_;
  std::vector<storage::TagRef> tags_;
  std::string metric_;
  PutError put_error_;
  std::string reason_;
  std::string error_;          // the error of a bad line after the first
  size_t string_fields_ = 0;   // not yet published
};

}  // namespace sundial::ingest
