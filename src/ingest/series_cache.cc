#include "sundial/ingest/series_cache.h"

#include <cstring>

namespace sundial::ingest {
namespace {

constexpr size_t kInitialSlots = 256;
constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4Full;

inline uint64_t Fmix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

// Two independent multiply lanes over 16-byte steps keep the dependency
// chains short; x -> (x ^ w) * odd is a bijection per step, so texts that
// differ in one word never collide before the final mix.
uint64_t HashBytes(std::string_view s, uint64_t seed) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t a = seed, b = seed ^ 0x13198A2E03707344ull;
  while (n >= 16) {
    uint64_t w1, w2;
    std::memcpy(&w1, p, 8);
    std::memcpy(&w2, p + 8, 8);
    a = (a ^ w1) * kMul1;
    b = (b ^ w2) * kMul2;
    p += 16;
    n -= 16;
  }
  if (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    a = (a ^ w) * kMul1;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  if (n > 0) std::memcpy(&w, p, n);
  b = (b ^ w ^ (static_cast<uint64_t>(s.size()) << 56)) * kMul2;
  return Fmix(a ^ ((b << 32) | (b >> 32)));
}

inline bool BytesEqual(const std::string& arena, uint64_t offset, std::string_view s) {
  return s.empty() || std::memcmp(arena.data() + offset, s.data(), s.size()) == 0;
}

template <typename Slot, typename Empty>
void Rehash(std::vector<Slot>* slots, Empty empty) {
  std::vector<Slot> old;
  old.swap(*slots);
  slots->assign(old.empty() ? kInitialSlots : old.size() * 2, Slot());
  const size_t mask = slots->size() - 1;
  for (const Slot& s : old) {
    if (empty(s)) continue;
    size_t i = s.hash & mask;
    while (!empty((*slots)[i])) i = (i + 1) & mask;
    (*slots)[i] = s;
  }
}

}  // namespace

SeriesCache::SeriesCache(size_t max_entries) : max_entries_(max_entries) {}

uint32_t SeriesCache::FindTagset(std::string_view tags, uint64_t hash) {
  if (tagsets_.empty()) return kNoTagset;
  const size_t mask = tagsets_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const TagsetSlot& s = tagsets_[i];
    if (s.id == kNoTagset) return kNoTagset;
    if (s.hash == hash && s.len == tags.size() && BytesEqual(tag_bytes_, s.offset, tags)) {
      last_tagset_ = s.id;
      last_offset_ = s.offset;
      last_len_ = s.len;
      return s.id;
    }
  }
}

uint32_t SeriesCache::AddTagset(std::string_view tags, uint64_t hash) {
  if ((tagset_count_ + 1) * 2 > tagsets_.size()) {
    Rehash(&tagsets_, [](const TagsetSlot& s) { return s.id == kNoTagset; });
  }
  TagsetSlot slot;
  slot.hash = hash;
  slot.offset = tag_bytes_.size();
  slot.len = static_cast<uint32_t>(tags.size());
  slot.id = tagset_count_++;
  if (!tags.empty()) tag_bytes_.append(tags.data(), tags.size());
  const size_t mask = tagsets_.size() - 1;
  size_t i = hash & mask;
  while (tagsets_[i].id != kNoTagset) i = (i + 1) & mask;
  tagsets_[i] = slot;
  last_tagset_ = slot.id;
  last_offset_ = slot.offset;
  last_len_ = slot.len;
  return slot.id;
}

uint32_t SeriesCache::TagsetOf(std::string_view tags) {
  if (last_tagset_ != kNoTagset && tags.size() == last_len_ &&
      BytesEqual(tag_bytes_, last_offset_, tags)) {
    return last_tagset_;
  }
  return FindTagset(tags, HashBytes(tags, 0x243F6A8885A308D3ull));
}

void SeriesCache::Prefetch(std::string_view metric, std::string_view tags) {
  // Checked first: it is the usual case and costs no compare of the tags.
  if (last_entry_ != kNone && entries_[last_entry_].next != kNone) return;  // likely a hit
  const uint32_t tagset = TagsetOf(tags);
  if (tagset == kNoTagset || index_.empty()) return;
  const uint64_t hash = HashBytes(metric, tagset * kMul2 + 1);
  __builtin_prefetch(&index_[hash & (index_.size() - 1)]);
}

inline bool SeriesCache::Matches(const Entry& e, std::string_view metric,
                                 uint32_t tagset) const {
  return e.tagset == tagset && e.len == metric.size() &&
         BytesEqual(metric_bytes_, e.offset, metric);
}

uint32_t SeriesCache::ProbeSeries(std::string_view metric, uint32_t tagset) const {
  const uint64_t hash = HashBytes(metric, tagset * kMul2 + 1);
  const size_t mask = index_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t e = index_[i];
    if (e == kNone) return kNone;
    if (entries_[e].hash == hash && Matches(entries_[e], metric, tagset)) return e;
  }
}

void SeriesCache::Follow(uint32_t entry) {
  if (last_entry_ != kNone) entries_[last_entry_].next = entry;
  last_entry_ = entry;
}

SeriesId SeriesCache::Find(std::string_view metric, std::string_view tags) {
  const uint32_t tagset = TagsetOf(tags);
  if (tagset == kNoTagset || index_.empty()) return kInvalidSeriesId;
  if (last_entry_ != kNone) {
    const uint32_t next = entries_[last_entry_].next;
    if (next != kNone && Matches(entries_[next], metric, tagset)) {
      last_entry_ = next;
      const uint32_t after = entries_[next].next;
      if (after != kNone) __builtin_prefetch(&entries_[after]);
      return entries_[next].id;
    }
  }
  const uint32_t e = ProbeSeries(metric, tagset);
  if (e == kNone) return kInvalidSeriesId;
  Follow(e);
  return entries_[e].id;
}

void SeriesCache::Insert(std::string_view metric, std::string_view tags, SeriesId id) {
  if (entries_.size() >= max_entries_ || tagset_count_ >= max_entries_) Clear();
  uint32_t tagset = kNoTagset;
  const uint64_t tags_hash = HashBytes(tags, 0x243F6A8885A308D3ull);
  if (last_tagset_ != kNoTagset && tags.size() == last_len_ &&
      BytesEqual(tag_bytes_, last_offset_, tags)) {
    tagset = last_tagset_;
  } else {
    tagset = FindTagset(tags, tags_hash);
  }
  if (tagset == kNoTagset) tagset = AddTagset(tags, tags_hash);
  Entry entry;
  entry.hash = HashBytes(metric, tagset * kMul2 + 1);
  entry.offset = metric_bytes_.size();
  entry.len = static_cast<uint32_t>(metric.size());
  entry.tagset = tagset;
  entry.id = id;
  if (!metric.empty()) metric_bytes_.append(metric.data(), metric.size());
  const auto pos = static_cast<uint32_t>(entries_.size());
  entries_.push_back(entry);
  if (entries_.size() * 2 > index_.size()) {
    index_.assign(index_.empty() ? kInitialSlots : index_.size() * 2, kNone);
    const size_t mask = index_.size() - 1;
    for (uint32_t e = 0; e < entries_.size(); ++e) {
      size_t i = entries_[e].hash & mask;
      while (index_[i] != kNone) i = (i + 1) & mask;
      index_[i] = e;
    }
  } else {
    const size_t mask = index_.size() - 1;
    size_t i = entry.hash & mask;
    while (index_[i] != kNone) i = (i + 1) & mask;
    index_[i] = pos;
  }
  Follow(pos);
}

void SeriesCache::Clear() {
  tagsets_ = std::vector<TagsetSlot>();
  entries_ = std::vector<Entry>();
  index_ = std::vector<uint32_t>();
  tag_bytes_ = std::string();
  metric_bytes_ = std::string();
  tagset_count_ = 0;
  last_tagset_ = kNoTagset;
  last_entry_ = kNone;
}

}  // namespace sundial::ingest
