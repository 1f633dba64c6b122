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
#include "sundial/storage/storage.h"

namespace sundial::ingest {

// An open-addressing map from a two-part byte key to a SeriesId. It grows
// up to max_entries and then starts over empty (bounded memory per
// connection).
class SeriesCache {
 public:
  explicit SeriesCache(size_t max_entries);
  SeriesCache(const SeriesCache&) = delete;
  SeriesCache& operator=(const SeriesCache&) = delete;

  static uint64_t Hash(std::string_view a, std::string_view b);

  // The id stored for key a+b, or kInvalidSeriesId. REQUIRES: hash == Hash(a, b).
  SeriesId Find(std::string_view a, std::string_view b, uint64_t hash) const;
  // Stores id for key a+b (not present yet). REQUIRES: hash == Hash(a, b).
  void Insert(std::string_view a, std::string_view b, uint64_t hash, SeriesId id);

  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint64_t key_offset = 0;  // into arena_
    uint32_t a_len = 0;
    uint32_t b_len = 0;
    SeriesId id = kInvalidSeriesId;  // kInvalidSeriesId marks an empty slot
  };
  void Grow();
  void Clear();

  const size_t max_entries_;
  std::vector<Slot> slots_;  // size is a power of two, at most half full
  std::string arena_;        // the keys' bytes
  size_t count_ = 0;
};

class SeriesResolver {
 public:
  SeriesResolver(storage::Storage* storage, const IngestOptions* options,
                 const PointRules* rules);

  // Cached id of the series whose key bytes are a+b, or kInvalidSeriesId.
  SeriesId Lookup(std::string_view a, std::string_view b, uint64_t hash) const {
    return cache_.Find(a, b, hash);
  }

  // On a cache miss: runs rows 11-15 (tag count, names, unknown metric),
  // resolves the series in storage and caches it under a+b.
  // REQUIRES: tag keys distinct; hash == SeriesCache::Hash(a, b).
  bool Resolve(std::string_view metric, const storage::TagRef* tags, size_t num_tags,
               std::string_view a, std::string_view b, uint64_t hash, SeriesId* id,
               PutError* error);

  size_t misses() const { return misses_; }

 private:
  storage::Storage* const storage_;
  const IngestOptions* const options_;
  const PointRules* const rules_;
  SeriesCache cache_;
  size_t misses_ = 0;
};

}  // namespace sundial::ingest
