#include "storage/tombstones.h"

#include <algorithm>

#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

constexpr uint8_t kStateVersion = 1;
// A bound on counts read from disk, so that a damaged count cannot make a
// reader reserve memory it will never fill.
constexpr uint32_t kMaxReserve = 1u << 16;

bool GetTime(std::string_view* in, Timestamp* t) {
  uint64_t zz = 0;
  if (!GetVarint64(in, &zz)) return false;
  *t = ZigZagDecode64(zz);
  return true;
}

bool GetByte(std::string_view* in, uint8_t* b) {
  if (in->empty()) return false;
  *b = static_cast<uint8_t>((*in)[0]);
  in->remove_prefix(1);
  return true;
}

}  // namespace

void EncodeDeleteOp(const DeleteOp& op, std::string* out) {
  out->clear();
  PutVarint64(out, ZigZagEncode64(op.start));
  PutVarint64(out, ZigZagEncode64(op.end));
  out->push_back(static_cast<char>(op.hide_empty ? 1 : 0));
  PutVarint32(out, static_cast<uint32_t>(op.series.size()));
  for (SeriesId id : op.series) PutVarint32(out, id);
}

bool DecodeDeleteOp(std::string_view in, DeleteOp* op) {
  uint8_t flags = 0;
  uint32_t n = 0;
  if (!GetTime(&in, &op->start) || !GetTime(&in, &op->end) || !GetByte(&in, &flags) ||
      !GetVarint32(&in, &n)) {
    return false;
  }
  if ((flags & ~1u) != 0) return false;
  op->hide_empty = (flags & 1) != 0;
  op->series.clear();
  op->series.reserve(std::min(n, kMaxReserve));
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t id = 0;
    if (!GetVarint32(&in, &id)) return false;
    op->series.push_back(id);
  }
  return in.empty();
}

void EncodeDeleteState(const std::vector<Tombstone>& tombstones,
                       const std::vector<SeriesId>& hidden, std::string* out) {
  out->clear();
  out->push_back(static_cast<char>(kStateVersion));
  PutVarint32(out, static_cast<uint32_t>(tombstones.size()));
  for (const Tombstone& t : tombstones) {
    PutVarint32(out, t.series);
    PutVarint64(out, ZigZagEncode64(t.start));
    PutVarint64(out, ZigZagEncode64(t.end));
    PutVarint64(out, ZigZagEncode64(t.part_start));
    PutVarint32(out, t.page_file_id);
    PutVarint64(out, t.page_end);
    out->push_back(static_cast<char>(t.has_cold ? 1 : 0));
    PutVarint32(out, t.cold_id);
  }
  PutVarint32(out, static_cast<uint32_t>(hidden.size()));
  for (SeriesId id : hidden) PutVarint32(out, id);
}

bool DecodeDeleteState(std::string_view in, std::vector<Tombstone>* tombstones,
                       std::vector<SeriesId>* hidden) {
  uint8_t version = 0;
  uint32_t n = 0;
  if (!GetByte(&in, &version) || version != kStateVersion || !GetVarint32(&in, &n)) return false;
  tombstones->clear();
  hidden->clear();
  tombstones->reserve(std::min(n, kMaxReserve));
  for (uint32_t i = 0; i < n; ++i) {
    Tombstone t;
    uint8_t has_cold = 0;
    if (!GetVarint32(&in, &t.series) || !GetTime(&in, &t.start) || !GetTime(&in, &t.end) ||
        !GetTime(&in, &t.part_start) || !GetVarint32(&in, &t.page_file_id) ||
        !GetVarint64(&in, &t.page_end) || !GetByte(&in, &has_cold) || has_cold > 1 ||
        !GetVarint32(&in, &t.cold_id)) {
      return false;
    }
    t.has_cold = has_cold != 0;
    tombstones->push_back(t);
  }
  uint32_t m = 0;
  if (!GetVarint32(&in, &m)) return false;
  hidden->reserve(std::min(m, kMaxReserve));
  for (uint32_t i = 0; i < m; ++i) {
    uint32_t id = 0;
    if (!GetVarint32(&in, &id)) return false;
    hidden->push_back(id);
  }
  return in.empty();
}

void TombstoneSet::Add(const Tombstone& t) {
  MutexLock lock(&mu_);
  list_.push_back(t);
  count_.store(list_.size(), std::memory_order_release);
}

void TombstoneSet::Reset(std::vector<Tombstone> tombstones, const std::vector<SeriesId>& hidden) {
  MutexLock lock(&mu_);
  list_ = std::move(tombstones);
  hidden_ = hidden;
  std::sort(hidden_.begin(), hidden_.end());
  hidden_.erase(std::unique(hidden_.begin(), hidden_.end()), hidden_.end());
  count_.store(list_.size(), std::memory_order_release);
  hidden_count_.store(hidden_.size(), std::memory_order_release);
}

std::vector<std::pair<Timestamp, Timestamp>> TombstoneSet::RangesFor(SeriesId series,
                                                                     const PartitionFiles& f,
                                                                     bool cold,
                                                                     uint64_t offset) const {
  std::vector<std::pair<Timestamp, Timestamp>> out;
  if (empty()) return out;
  MutexLock lock(&mu_);
  for (const Tombstone& t : list_) {
    if (t.series != series || t.part_start != f.part_start) continue;
    const bool covered =
        cold ? (t.has_cold && f.has_cold && t.cold_id == f.cold_id)
             : (t.page_file_id != 0 && t.page_file_id == f.page_file_id && offset < t.page_end);
    if (covered) out.emplace_back(t.start, t.end);
  }
  return out;
}

bool TombstoneSet::HasPartition(Timestamp part_start) const {
  if (empty()) return false;
  MutexLock lock(&mu_);
  for (const Tombstone& t : list_) {
    if (t.part_start == part_start) return true;
  }
  return false;
}

bool TombstoneSet::Covers(SeriesId series, Timestamp part_start) const {
  if (empty()) return false;
  MutexLock lock(&mu_);
  for (const Tombstone& t : list_) {
    if (t.series == series && t.part_start == part_start) return true;
  }
  return false;
}

std::vector<Tombstone> TombstoneSet::All() const {
  MutexLock lock(&mu_);
  return list_;
}

std::vector<Timestamp> TombstoneSet::Partitions() const {
  std::vector<Timestamp> out;
  {
    MutexLock lock(&mu_);
    for (const Tombstone& t : list_) out.push_back(t.part_start);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool TombstoneSet::IsHidden(SeriesId id) const {
  if (!any_hidden()) return false;
  MutexLock lock(&mu_);
  return std::binary_search(hidden_.begin(), hidden_.end(), id);
}

void TombstoneSet::Hide(SeriesId id) {
  MutexLock lock(&mu_);
  auto it = std::lower_bound(hidden_.begin(), hidden_.end(), id);
  if (it == hidden_.end() || *it != id) hidden_.insert(it, id);
  hidden_count_.store(hidden_.size(), std::memory_order_release);
}

void TombstoneSet::Unhide(SeriesId id) {
  if (!any_hidden()) return;
  MutexLock lock(&mu_);
  auto it = std::lower_bound(hidden_.begin(), hidden_.end(), id);
  if (it != hidden_.end() && *it == id) hidden_.erase(it);
  hidden_count_.store(hidden_.size(), std::memory_order_release);
}

std::vector<SeriesId> TombstoneSet::Hidden() const {
  MutexLock lock(&mu_);
  return hidden_;
}

void TombstoneSet::FilterHidden(std::vector<SeriesId>* ids) const {
  if (!any_hidden()) return;
  MutexLock lock(&mu_);
  size_t kept = 0;
  for (SeriesId id : *ids) {
    if (!std::binary_search(hidden_.begin(), hidden_.end(), id)) (*ids)[kept++] = id;
  }
  ids->resize(kept);
}

}  // namespace sundial::storage
