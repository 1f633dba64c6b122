#include "sundial/ingest/series_resolver.h"

#include <cstring>

namespace sundial::ingest {
namespace {

constexpr size_t kInitialSlots = 256;
constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ull;
constexpr uint64_t kMul2 = 0xC2B2AE3D27D4EB4Full;

// Two independent multiply lanes over 16-byte steps keep the dependency
// chains short; x -> (x ^ w) * odd is a bijection per step, so keys that
// differ in one word never collide, and the final mix spreads every bit.
inline void HashBytes(std::string_view s, uint64_t* h1, uint64_t* h2) {
  const char* p = s.data();
  size_t n = s.size();
  uint64_t a = *h1, b = *h2;
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
  *h1 = a;
  *h2 = b;
}

inline uint64_t Fmix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDull;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace

SeriesCache::SeriesCache(size_t max_entries) : max_entries_(max_entries) {}

uint64_t SeriesCache::Hash(std::string_view a, std::string_view b) {
  uint64_t h1 = 0x243F6A8885A308D3ull, h2 = 0x13198A2E03707344ull;
  HashBytes(a, &h1, &h2);
  HashBytes(b, &h1, &h2);
  return Fmix(h1 ^ Fmix(h2));
}

SeriesId SeriesCache::Find(std::string_view a, std::string_view b, uint64_t hash) const {
  if (slots_.empty()) return kInvalidSeriesId;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.id == kInvalidSeriesId) return kInvalidSeriesId;
    if (s.hash == hash && s.a_len == a.size() && s.b_len == b.size()) {
      const char* k = arena_.data() + s.key_offset;
      if ((a.empty() || std::memcmp(k, a.data(), a.size()) == 0) &&
          (b.empty() || std::memcmp(k + a.size(), b.data(), b.size()) == 0)) {
        return s.id;
      }
    }
  }
}

void SeriesCache::Insert(std::string_view a, std::string_view b, uint64_t hash, SeriesId id) {
  if (count_ >= max_entries_) Clear();
  if ((count_ + 1) * 2 > slots_.size()) Grow();
  Slot slot;
  slot.hash = hash;
  slot.key_offset = arena_.size();
  slot.a_len = static_cast<uint32_t>(a.size());
  slot.b_len = static_cast<uint32_t>(b.size());
  slot.id = id;
  if (!a.empty()) arena_.append(a.data(), a.size());
  if (!b.empty()) arena_.append(b.data(), b.size());
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i].id != kInvalidSeriesId) i = (i + 1) & mask;
  slots_[i] = slot;
  ++count_;
}

void SeriesCache::Grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.empty() ? kInitialSlots : old.size() * 2, Slot());
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.id == kInvalidSeriesId) continue;
    size_t i = s.hash & mask;
    while (slots_[i].id != kInvalidSeriesId) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void SeriesCache::Clear() {
  slots_.clear();
  slots_.shrink_to_fit();
  arena_.clear();
  arena_.shrink_to_fit();
  count_ = 0;
}

SeriesResolver::SeriesResolver(storage::Storage* storage, const IngestOptions* options,
                               const PointRules* rules)
    : storage_(storage), options_(options), rules_(rules),
      cache_(options->series_cache_entries) {}

bool SeriesResolver::Resolve(std::string_view metric, const storage::TagRef* tags,
                             size_t num_tags, std::string_view a, std::string_view b,
                             uint64_t hash, SeriesId* id, PutError* error) {
  ++misses_;
  if (!rules_->CheckMetricAndTags(metric, tags, num_tags, error)) return false;
  if (!options_->auto_create_metrics) {
    uint32_t uid;
    if (!storage_->LookupUid(storage::NameKind::kMetric, metric, &uid).ok()) {
      error->kind = PutErrorKind::kUnknownMetric;
      error->message = "No such name for 'metrics': '";
      error->message += metric;
      error->message += "'";
      return false;
    }
  }
  const Status s = storage_->ResolveSeries(metric, tags, num_tags, id);
  if (!s.ok()) {
    error->kind = PutErrorKind::kStorage;
    error->message = s.ToString();
    return false;
  }
  cache_.Insert(a, b, hash, *id);
  return true;
}

}  // namespace sundial::ingest
