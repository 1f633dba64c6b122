// HttpPutHandler: validates and stores the points of a POST /api/put body
// for one connection (opentsdb-compat.md §4.1-4.3).
//
// Points are independent: bad ones are skipped (and described, if asked)
// and good ones are stored with one Storage::Append per request, before the
// caller answers. The response itself (status codes, summary JSON, sync) is
// server/'s job; this class reports what happened in an HttpPutOutcome.
//
// Thread-safety: not thread-safe; one per connection. Storage, options,
// rules and stats are borrowed and must outlive it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/point_writer.h"
#include "sundial/ingest/put_json_parser.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

struct HttpPutOutcome {
  // Set when the whole body was rejected before any point was looked at:
  // the 400 message and details ("Missing request content", "The JSON must
  // start as an object or an array", "Unable to parse the given JSON",
  // "No datapoints found in content").
  bool request_error = false;
  std::string message;
  std::string details;
  size_t points = 0;    // data points in the body
  size_t success = 0;   // points stored
  size_t failed = 0;    // points rejected by validation
  // With want_details: one JSON object per rejected point,
  // {"error":"<text>","datapoint":{...}}, comma-joined, without brackets.
  std::string errors_json;
  // Non-ok when storage refused the batch; then success is 0 and no point of
  // the request was acknowledged.
  Status storage_status;
};

class HttpPutHandler {
 public:
  HttpPutHandler(storage::Storage* storage, const IngestOptions* options,
                 const PointRules* rules, IngestStats* stats);
  HttpPutHandler(const HttpPutHandler&) = delete;
  HttpPutHandler& operator=(const HttpPutHandler&) = delete;

  // Parses body, validates every point, appends the good ones to storage.
  void Handle(std::string_view body, bool want_details, HttpPutOutcome* out);

 private:
  // Validates one point, resolves its series and adds it to batch_.
  // Returns false with *error set to the "details" text of §4.3.
  bool CheckPoint(const JsonPutPoint& p, std::string* error);
  void AddFailure(const JsonPutPoint& p, std::string_view error, bool want_details,
                  HttpPutOutcome* out);

  const PointRules* const rules_;
  IngestStats* const stats_;
  PointWriter writer_;
  PutJsonParser parser_;
  std::vector<storage::TagRef> tags_;  // scratch: one point's distinct tags
  PutError error_;                     // scratch
};

}  // namespace sundial::ingest
