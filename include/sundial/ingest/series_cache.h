// SeriesCache: a per-connection map from the raw bytes of a series key
// (metric text, tag text) to its SeriesId.
//
// Why two levels: clients send runs of points that share one tag text (one
// host, many metrics), and the tag text is most of a key's bytes. So the
// tag text is resolved to a small tagset number first (usually by one
// memcmp against the previous key's, which is hot in cache), and only the
// short metric is hashed and probed together with that number. Every key is
// stored and compared in full, so a hash collision can never send a point
// to the wrong series.
//
// Why a successor link: a client sends its series in the same order again
// and again (tcollector's collectors print in a fixed order, an agent walks
// the same metrics every interval). Each entry remembers the entry that was
// looked up right after it, and Find() tries that one first: a hit then
// costs a compare of the key bytes, no hashing, and the entry is usually
// the next one in memory. The link is a hint only; the key is still
// compared in full.
//
// Memory is bounded: past max_entries series (or tagsets) the cache starts
// over empty.
//
// Thread-safety: not thread-safe; one per connection.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/types.h"

namespace sundial::ingest {

class SeriesCache {
 public:
  explicit SeriesCache(size_t max_entries);
  SeriesCache(const SeriesCache&) = delete;
  SeriesCache& operator=(const SeriesCache&) = delete;

  // The id stored for (metric, tags), or kInvalidSeriesId.
  SeriesId Find(std::string_view metric, std::string_view tags);
  // Starts loading the memory Find(metric, tags) will probe, so that a
  // caller can overlap the cache miss with other work (a no-op on a miss).
  void Prefetch(std::string_view metric, std::string_view tags);
  // Stores id for (metric, tags). REQUIRES: Find(metric, tags) missed.
  void Insert(std::string_view metric, std::string_view tags, SeriesId id);

  size_t size() const { return entries_.size(); }
  // Forgets every entry.
  void Clear();

 private:
  static constexpr uint32_t kNoTagset = UINT32_MAX;
  static constexpr uint32_t kNone = UINT32_MAX;

  struct TagsetSlot {
    uint64_t hash = 0;
    uint64_t offset = 0;  // into tag_bytes_
    uint32_t len = 0;
    uint32_t id = kNoTagset;  // kNoTagset marks an empty slot
  };
  // Series are kept densely in insertion order (which is usually the order
  // a client sends them in, so a run of hits walks memory forward); the
  // open-addressing table index_ maps a hash to a position in entries_.
  struct Entry {
    uint64_t hash = 0;
    uint64_t offset = 0;  // into metric_bytes_
    uint32_t len = 0;
    uint32_t tagset = 0;
    SeriesId id = kInvalidSeriesId;
    uint32_t next = kNone;  // the entry looked up right after this one
  };

  // The tagset number of this tag text, or kNoTagset.
  uint32_t TagsetOf(std::string_view tags);
  uint32_t FindTagset(std::string_view tags, uint64_t hash);
  uint32_t AddTagset(std::string_view tags, uint64_t hash);
  bool Matches(const Entry& e, std::string_view metric, uint32_t tagset) const;
  // The entry of (metric, tagset) found by hashing, or kNone.
  uint32_t ProbeSeries(std::string_view metric, uint32_t tagset) const;
  // Makes `entry` the current one, linking it as the successor of the last.
  void Follow(uint32_t entry);

  const size_t max_entries_;
  std::vector<TagsetSlot> tagsets_;  // power-of-two size, at most half full
  std::vector<Entry> entries_;       // in insertion order
  std::vector<uint32_t> index_;      // power-of-two size, at most half full
  std::string tag_bytes_;
  std::string metric_bytes_;
  uint32_t tagset_count_ = 0;
  // The tagset of the previous Find, to skip hashing a repeated tag text.
  uint32_t last_tagset_ = kNoTagset;
  uint64_t last_offset_ = 0;
  uint32_t last_len_ = 0;
  // The entry of the previous hit or insert, or kNone.
  uint32_t last_entry_ = kNone;
};

}  // namespace sundial::ingest
