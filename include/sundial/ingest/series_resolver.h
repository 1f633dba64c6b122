// SeriesResolver: turns (metric, tags) into a SeriesId for one connection.
//
// Why a per-connection cache keyed by raw bytes: a client sends the same
// series again and again with the same bytes ("metric" and the tag text of
// the line, or the JSON text of the "tags" object). Hashing and comparing
// those bytes costs a few ns; canonicalising the tags, validating names and
// asking Storage (which locks) costs far more. Only a miss pays for the
// checks of rows 11-15 and Storage::ResolveSeries. A hit needs no name
// validation at all: identical bytes passed the identical checks before.
// The cache holds a copy of every key, so a hash collision can never send a
// point to the wrong series.
//
// Thread-safety: not thread-safe; one per connection. Storage, rules and
// options are borrowed and must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/types.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/series_cache.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

class SeriesResolver {
 public:
  // require_tag: reject a series without tags (OpenTSDB's rule); false
  // lets a series have none. opentsdb_names: names must pass OpenTSDB's
  // character rules (CheckMetricAndTags); false: only the relaxed
  // CheckTagCountAndText.
  SeriesResolver(storage::Storage* storage, const IngestOptions* options,
                 const PointRules* rules, bool require_tag = true, bool opentsdb_names = true);

  // Cached id of the series whose key bytes are (metric_text, tag_text),
  // or kInvalidSeriesId.
  SeriesId Lookup(std::string_view metric_text, std::string_view tag_text) {
    return cache_.Find(metric_text, tag_text);
  }

  // See SeriesCache::Prefetch.
  void Prefetch(std::string_view metric_text, std::string_view tag_text) {
    cache_.Prefetch(metric_text, tag_text);
  }

  // On a cache miss: runs rows 11-15 (tag count, names, unknown metric;
  // zero tags pass when require_tag is false),
  // resolves the series in storage and caches it under the key bytes
  // (metric_text, tag_text). REQUIRES: tag keys distinct; Lookup() missed.
  bool Resolve(std::string_view metric, const storage::TagRef* tags, size_t num_tags,
               std::string_view metric_text, std::string_view tag_text, SeriesId* id,
               PutError* error);

  size_t misses() const { return misses_; }

 private:
  storage::Storage* const storage_;
  const IngestOptions* const options_;
  const PointRules* const rules_;
  const bool require_tag_;
  const bool opentsdb_names_;
  SeriesCache cache_;
  size_t misses_ = 0;
};

}  // namespace sundial::ingest
