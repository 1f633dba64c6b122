// RemoteWriteHandler: stores the samples of one Prometheus remote_write
// body (see remote_write.h for the wire format).
//
// Mapping: the metric is the value of the __name__ label; every other label
// with a non-empty value becomes a tag (Prometheus treats an empty label
// value as an absent label), so a series with no other labels has no tags.
// A sample's timestamp is in milliseconds; its value is stored as a float.
//
// What is refused, and how:
//  * the whole body (nothing stored, request_status): corrupt snappy, a
//    decompressed size over the limit, malformed protobuf.
//  * a whole series (its samples counted as rejected, the other series
//    stored, request_status names the first bad series and how many more):
//    a series without __name__, with a label name repeated, an empty name
//    or one with an ASCII control character (NamePolicy::kPlainText: label
//    values such as "127.0.0.1:9100" are kept as they are), or more tags
//    than ingest.max_tags. This is a partial write, as Mimir and InfluxDB
//    answer one: the server replies 400 (Prometheus does not retry a 400,
//    and the good series are already stored), so a bad series is reported
//    rather than silently dropped, and does not take its batch with it.
//  * single samples, counted and skipped: stale markers (the NaN Prometheus
//    writes when a series disappears: dropped, as there is no "absent" value
//    to store), other NaNs and infinities (Sundial refuses non-finite values
//    on every protocol), timestamps beyond 9999999999999 ms or negative, and
//    series of unknown metrics when ingest.auto_create_metrics is off.
//
// Points go through the shared write path (PointWriter, protocol
// remote_write, tags optional), which counts accepted and rejected points;
// stale markers are counted in IngestStats::remote_write_stale and bodies
// refused whole in remote_write_bad.
//
// Thread-safety: not thread-safe; borrowed by one request at a time.
// Storage, options, rules and stats are borrowed and must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/point_writer.h"
#include "sundial/ingest/remote_write.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

struct RemoteWriteOutcome {
  // Non-ok when the body was refused: ResourceExhausted for a decompressed
  // size over the limit (413, nothing stored), InvalidArgument otherwise
  // (400): a corrupt body (nothing stored) or bad series (the other series
  // were stored, see `stored`).
  Status request_status;
  size_t samples = 0;   // samples in the body
  size_t stored = 0;    // acknowledged by storage
  size_t stale = 0;     // stale markers dropped
  size_t rejected = 0;  // other samples refused (see the file comment)
  size_t series_misses = 0;  // series resolved through storage
  // Non-ok when storage refused to resolve a series or to append; then
  // nothing of the request was acknowledged.
  Status storage_status;
};

class RemoteWriteHandler {
 public:
  RemoteWriteHandler(storage::Storage* storage, const IngestOptions* options,
                     const PointRules* rules, IngestStats* stats);
  RemoteWriteHandler(const RemoteWriteHandler&) = delete;
  RemoteWriteHandler& operator=(const RemoteWriteHandler&) = delete;

  // Decompresses (at most max_size bytes), decodes, validates and stores
  // one snappy-compressed WriteRequest body.
  void Handle(std::string_view compressed, uint64_t max_size, RemoteWriteOutcome* out);

 private:
  // The series of s, resolving it on a cache miss. Sets *id to
  // kInvalidSeriesId for a series whose samples are to be skipped.
  Status SeriesOf(const RemoteSeries& s, SeriesId* id, RemoteWriteOutcome* out);

  IngestStats* const stats_;
  PointWriter writer_;
  std::string body_;         // the decompressed body; views point into it
  WriteRequestView request_;
  std::vector<SeriesId> ids_;           // per series of the request
  std::vector<bool> bad_;               // per series: refused by the rules
  std::vector<RemoteLabel> labels_;     // scratch: a series' labels
  std::vector<storage::TagRef> tags_;   // scratch
  std::string key_;                     // scratch: a cache key
  PutError error_;                      // scratch
};

}  // namespace sundial::ingest
