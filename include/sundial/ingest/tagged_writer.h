// TaggedWriter: the write path of the protocols whose series come as a
// metric plus any number of tags, zero included (Prometheus remote_write,
// Graphite): a per-connection series cache keyed by raw bytes, a batch of
// points, and one Storage::Append per batch.
//
// Why not SeriesResolver: that one applies OpenTSDB's put rules (at least
// one tag, OpenTSDB's name characters), which reject a Graphite path
// without tags or a Prometheus label value such as "127.0.0.1:9100". These
// protocols check their own names before Resolve(); this class applies the
// rules shared by every protocol: at most max_tags tags and, with
// auto_create_metrics off, known metrics only.
//
// Thread-safety: not thread-safe; one per connection or per borrowed HTTP
// handler. Storage and options are borrowed and must outlive it.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/series_cache.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

class TaggedWriter {
 public:
  TaggedWriter(storage::Storage* storage, const IngestOptions* options);
  TaggedWriter(const TaggedWriter&) = delete;
  TaggedWriter& operator=(const TaggedWriter&) = delete;

  // The cached series of the key bytes (metric_key, tag_key), or
  // kInvalidSeriesId.
  SeriesId Lookup(std::string_view metric_key, std::string_view tag_key) {
    return cache_.Find(metric_key, tag_key);
  }

  // On a Lookup miss: resolves metric{tags} in storage and caches it under
  // the key bytes. InvalidArgument for too many tags, NotFound for an
  // unknown metric when metrics are not auto-created, storage's error
  // otherwise. REQUIRES: names checked by the caller; tag keys distinct.
  Status Resolve(std::string_view metric, const storage::TagRef* tags, size_t num_tags,
                 std::string_view metric_key, std::string_view tag_key, SeriesId* id);

  // Queues a point for the next Flush().
  void Add(SeriesId id, Timestamp t, double v) {
    storage::SeriesPoint& p = batch_.emplace_back();
    p.series = id;
    p.t = t;
    p.v = Value::Float(v);
  }
  size_t pending() const { return batch_.size(); }
  // True once the batch should be flushed (options' max_batch_points).
  bool full() const { return batch_.size() >= max_batch_; }

  // Appends the queued points to storage (all or nothing) and empties the
  // batch either way. Returns storage's status.
  Status Flush();

  // Resolves through storage since construction.
  size_t misses() const { return misses_; }

 private:
  storage::Storage* const storage_;
  const IngestOptions* const options_;
  const size_t max_batch_;
  SeriesCache cache_;
  std::vector<storage::SeriesPoint> batch_;
  size_t misses_ = 0;
};

}  // namespace sundial::ingest
