// GraphiteHandler: stores the points of Graphite plaintext lines for one
// connection (see graphite_parser.h for the line format and mapping).
//
// Carbon never answers on a plaintext connection, so neither does this:
// a bad line is skipped and counted, and the caller may log the reason of
// the first bad line of each call (GraphiteOutcome::first_error).
//
// Durability: the points of one HandleLines call are appended to storage
// before it returns (in batches of ingest.max_batch_points), so they are in
// the WAL before the connection reads again.
//
// Points go through the shared write path (PointWriter, protocol graphite,
// tags optional, NamePolicy::kPlainText), which counts accepted and
// rejected points.
//
// Thread-safety: not thread-safe; one per connection. Storage, options,
// rules and stats are borrowed and must outlive it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/ingest/graphite_parser.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/point_writer.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

struct GraphiteOutcome {
  size_t lines = 0;     // non-empty lines seen
  size_t stored = 0;    // points acknowledged by storage
  size_t rejected = 0;  // bad lines, and points of unknown metrics
  size_t series_misses = 0;
  std::string first_error;  // the reason and text of the first bad line
  // Non-ok when storage refused a batch: its points were not stored.
  Status storage_status;
};

class GraphiteHandler {
 public:
  GraphiteHandler(storage::Storage* storage, const IngestOptions* options,
                  const PointRules* rules, IngestStats* stats);
  GraphiteHandler(const GraphiteHandler&) = delete;
  GraphiteHandler& operator=(const GraphiteHandler&) = delete;

  // `lines` holds complete lines, each ending in '\n' (maybe "\r\n").
  // now_ms stands for a missing or -1 timestamp. Adds to *out (which the
  // caller clears).
  void HandleLines(std::string_view lines, Timestamp now_ms, GraphiteOutcome* out);

 private:
  // One line without its line end.
  void HandleLine(std::string_view line, Timestamp now_ms, GraphiteOutcome* out);
  void Reject(std::string_view line, const Status& why, GraphiteOutcome* out);
  void Flush(GraphiteOutcome* out);

  PointWriter writer_;
  std::vector<storage::TagRef> tags_;  // scratch
  PutError error_;                     // scratch
};

}  // namespace sundial::ingest
