// TagsetTable: interned tag sets, each a list of (tag-key uid, tag-value
// uid) pairs sorted by key uid, mapped to dense ids from 0.
//
// Why: the series of one host share one tag set (a DevOps host has ~100
// metrics and 8 tags), so SeriesDict keeps a series' key as two words,
// (metric uid, tagset id), and each distinct tag set once. With 8 tags that
// is 8 bytes per series instead of 72.
//
// Memory: one flat word array (n, then n key/value pairs per set), one
// offset per set and an open-addressing hash index of 4-byte slots kept
// under 70% full. Nothing is ever removed.
//
// Thread-safety: none; SeriesDict guards it with its own lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace sundial::storage {

class TagsetTable {
 public:
  using UidPair = std::pair<uint32_t, uint32_t>;
  static constexpr uint32_t kNone = UINT32_MAX;

  // A borrowed view of one tag set, valid until the next Intern().
  struct View {
    const uint32_t* words = nullptr;  // key, value, key, value, ...
    uint32_t size = 0;                // number of pairs
    UidPair operator[](uint32_t i) const { return {words[2 * i], words[2 * i + 1]}; }
  };

  TagsetTable() = default;
  TagsetTable(const TagsetTable&) = delete;
  TagsetTable& operator=(const TagsetTable&) = delete;

  // The id of the n pairs, or kNone. REQUIRES: pairs sorted by key uid.
  uint32_t Find(const UidPair* pairs, size_t n) const;
  // The id of the n pairs, adding them if new. REQUIRES: as Find, and
  // fewer than kNone sets in all.
  uint32_t Intern(const UidPair* pairs, size_t n);
  // REQUIRES: id < size().
  View Get(uint32_t id) const {
    const uint32_t* w = &words_[offsets_[id]];
    return View{w + 1, w[0]};
  }
  uint32_t size() const { return static_cast<uint32_t>(offsets_.size()); }
  // Heap bytes held.
  size_t MemoryUsage() const;

 private:
  static uint64_t Hash(const UidPair* pairs, size_t n);
  bool Equals(uint32_t id, const UidPair* pairs, size_t n) const;
  void Insert(uint32_t id, uint64_t hash);
  void Grow();

  std::vector<uint32_t> words_;
  std::vector<uint32_t> offsets_;  // by id, into words_
  std::vector<uint32_t> index_;    // id + 1, 0 = empty; size a power of two
};

}  // namespace sundial::storage
