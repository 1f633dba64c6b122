// PointWriter: the one write path every ingest protocol feeds.
//
// A protocol handler parses its wire format and, for each point, asks the
// writer for the point's series and hands it the point:
//
//   SeriesId id = w.Lookup(metric_text, tag_text);      // cache, no checks
//   if (id == kInvalidSeriesId &&
//       !w.Resolve(metric, tags, n, metric_text, tag_text, &id, &error)) {
//     w.Reject(error.kind);                              // counted, not stored
//   } else {
//     w.Add(id, t_ms, value);                            // buffered
//   }
//   if (w.full()) ...Flush...;
//   ...
//   Status s = w.Flush(&n);   // one Storage::Append: the points are in the WAL
//
// and acknowledges its client only after Flush() returned ok (DESIGN.md §3:
// before an HTTP reply, or before the next read of a telnet connection).
//
// What the writer owns, so that no protocol repeats it:
//  - series resolution: a per-writer SeriesCache keyed by the raw key bytes
//    the protocol chooses (metric_text, tag_text), falling back to the name
//    checks of PointRules and Storage::ResolveSeries on a miss;
//  - the batch: points go to storage in one Append per Flush();
//  - the counters: accepted / rejected points per protocol, the OpenTSDB
//    error-kind counters (rpc.errors), storage errors and cache misses, all
//    published to the shared IngestStats once per Flush(), not per point.
//
// Tags: with TagPolicy::kAtLeastOne a series without tags is rejected with
// OpenTSDB's "Need at least one tag" (telnet put, /api/put); with kAny a
// series may have no tags (line protocol, remote_write, Graphite).
// Names: NamePolicy::kOpenTsdb (the default) applies OpenTSDB's character
// rules; kPlainText accepts any bytes but ASCII controls, for protocols
// whose names routinely hold other characters (InfluxDB's "°C", "%").
//
// Stable API: protocols outside this module build on it; extend, don't
// change.
//
// Thread-safety: not thread-safe; one per connection or per borrowed
// handler. Storage, options, rules and stats are borrowed and must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/series_resolver.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

enum class TagPolicy : uint8_t {
  kAtLeastOne,  // OpenTSDB: a series needs one tag
  kAny,         // zero tags allowed
};

enum class NamePolicy : uint8_t {
  kOpenTsdb,   // OpenTSDB's characters (PointRules::CheckMetricAndTags)
  kPlainText,  // any bytes but ASCII controls (PointRules::CheckTagCountAndText)
};

class PointWriter {
 public:
  PointWriter(storage::Storage* storage, const IngestOptions* options, const PointRules* rules,
              IngestStats* stats, Protocol protocol, TagPolicy tag_policy,
              NamePolicy name_policy = NamePolicy::kOpenTsdb);
  PointWriter(const PointWriter&) = delete;
  PointWriter& operator=(const PointWriter&) = delete;
  // Publishes the counters not yet published. Buffered points are dropped
  // (never acknowledged): callers Flush() first.
  ~PointWriter();

  // The cached id of the series whose key bytes are (metric_text,
  // tag_text), or kInvalidSeriesId. A hit means the same bytes passed every
  // check before; the protocol must map equal bytes to the same series.
  SeriesId Lookup(std::string_view metric_text, std::string_view tag_text) {
    return resolver_.Lookup(metric_text, tag_text);
  }
  // Starts loading what a later Lookup of the same key probes.
  void Prefetch(std::string_view metric_text, std::string_view tag_text) {
    resolver_.Prefetch(metric_text, tag_text);
  }

  // After a Lookup miss: checks the tag count (per the TagPolicy and
  // IngestOptions::max_tags), the characters of the metric and the tags and
  // auto_create_metrics, finds or creates the series in storage and caches
  // it under (metric_text, tag_text). On failure returns false with *error
  // set (kIllegalArgument, kUnknownMetric, or kStorage); the caller decides
  // whether to Reject(). REQUIRES: tag keys are distinct.
  bool Resolve(std::string_view metric, const storage::TagRef* tags, size_t num_tags,
               std::string_view metric_text, std::string_view tag_text, SeriesId* id,
               PutError* error) {
    return resolver_.Resolve(metric, tags, num_tags, metric_text, tag_text, id, error);
  }

  // Buffers one point of series id (from Lookup or Resolve) at t (ms).
  void Add(SeriesId id, Timestamp t, const Value& v) { AddPoint(&batch_, id, t, v); }

  // Counts one point refused before it reached the batch, by kind
  // (kStorage counts as a storage error).
  void Reject(PutErrorKind kind);
  // Counts n refused points without an OpenTSDB error kind (e.g. a whole
  // line of another protocol that did not parse).
  void RejectOther(size_t n) { rejected_ += n; }

  // True when the batch reached IngestOptions::max_batch_points: Flush()
  // before adding more.
  bool full() const { return batch_.size() >= max_batch_; }
  // Points buffered and not yet flushed.
  size_t pending() const { return batch_.size(); }

  // Appends the buffered points to storage in one Append and clears the
  // batch. On success they are acknowledged (in the WAL) and counted as
  // accepted; on failure none is, and all are counted as storage errors and
  // rejected. *points (optional) gets the number of points attempted.
  // Publishes the counters either way. Returns storage's status (ok if
  // nothing was pending).
  Status Flush(size_t* points = nullptr);

  Protocol protocol() const { return protocol_; }

 private:
  void PublishStats();

  storage::Storage* const storage_;
  IngestStats* const stats_;
  const Protocol protocol_;
  const size_t max_batch_;
  SeriesResolver resolver_;
  std::vector<storage::SeriesPoint> batch_;
  // Counted locally, published to stats_ by PublishStats.
  uint64_t rejected_ = 0;
  uint64_t invalid_values_ = 0;
  uint64_t illegal_arguments_ = 0;
  uint64_t unknown_metrics_ = 0;
  size_t misses_published_ = 0;
};

}  // namespace sundial::ingest
