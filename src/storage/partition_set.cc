#include "storage/partition_set.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>

#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

bool ParseRange(const std::string& name, Timestamp* start, Timestamp* end) {
  const size_t us = name.find('_');
  if (us == std::string::npos || us == 0 || us + 1 >= name.size()) return false;
  char* stop = nullptr;
  const long long a = std::strtoll(name.c_str(), &stop, 10);
  if (stop != name.c_str() + us) return false;
  const long long b = std::strtoll(name.c_str() + us + 1, &stop, 10);
  if (*stop != '\0' || b <= a) return false;
  *start = a;
  *end = b;
  return true;
}

Timestamp FloorDiv(Timestamp a, Timestamp b) {
  Timestamp q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

PartitionSet::PartitionSet(Env* env, std::string root, Timestamp duration, uint64_t window_bytes,
                           size_t max_open)
    : env_(env),
      root_(std::move(root)),
      duration_(duration),
      window_bytes_(window_bytes),
      max_open_(std::max<size_t>(2, max_open)) {}

std::string PartitionSet::DirOf(Timestamp start, Timestamp end) const {
  return root_ + "/" + std::to_string(start) + "_" + std::to_string(end);
}

void PartitionSet::Marks(std::string* payload) {
  payload->clear();
  MutexLock lock(&mu_);
  PutVarint32(payload, static_cast<uint32_t>(slots_.size()));
  for (auto& [start, slot] : slots_) {
    PutVarint64(payload, ZigZagEncode64(start));
    // A closed partition without a page file (RangeOf made it, or its
    // pages went into a cold file) gets mark 0, so that pages written to
    // it after this mark are cut by recovery like those of open ones.
    const bool empty = !slot.part && !env_->FileExists(DirOf(start, slot.end) + "/pages");
    payload->push_back(slot.part || empty ? 1 : 0);
    if (slot.part) PutVarint64(payload, slot.part->Mark());
    if (empty) PutVarint64(payload, 0);
  }
}

bool PartitionSet::ApplyMarks(const std::string& marks, std::vector<std::string>* warnings) {
  std::map<Timestamp, std::pair<bool, uint64_t>> m;
  std::string_view in(marks);
  uint32_t n = 0;
  if (!GetVarint32(&in, &n)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t zz = 0, end = 0;
    if (!GetVarint64(&in, &zz) || in.empty()) return false;
    const bool has = in[0] != 0;
    in.remove_prefix(1);
    if (has && !GetVarint64(&in, &end)) return false;
    m[ZigZagDecode64(zz)] = {has, end};
  }
  if (!in.empty()) return false;
  for (auto& [start, slot] : slots_) {
    auto it = m.find(start);
    if (it != m.end() && !it->second.first) continue;  // closed then: untouched
    const uint64_t mark = it == m.end() ? 0 : it->second.second;
    Status s = Partition::CutToMark(env_, DirOf(start, slot.end), mark, &slot.cut);
    if (!s.ok()) warnings->push_back(s.ToString());
  }
  return true;
}

Status PartitionSet::Open(std::vector<std::string>* warnings, const std::string* marks) {
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(root_));
  std::vector<std::string> names;
  SUNDIAL_RETURN_IF_ERROR(env_->ListDir(root_, &names));
  MutexLock lock(&mu_);
  for (const auto& name : names) {
    Timestamp start = 0, end = 0;
    if (!ParseRange(name, &start, &end)) {
      warnings->push_back(root_ + "/" + name + ": not a partition directory; ignored");
      continue;
    }
    slots_[start].end = end;
  }
  if (marks != nullptr && !ApplyMarks(*marks, warnings)) {
    warnings->push_back("WAL checkpoint: partition marks damaged; pages written since may "
                        "hold points the WAL replays again");
  }
  // Repair missing indexes now, so that startup reports them, and open the
  // newest partition, which the writers need first.
  for (auto& [start, slot] : slots_) {
    const std::string dir = DirOf(start, slot.end);
    const bool repair = env_->FileExists(dir + "/pages") && !env_->FileExists(dir + "/index");
    if (repair || start == slots_.rbegin()->first) {
      Status s = Load(start, &slot);
      if (!s.ok()) warnings->push_back(s.ToString());
    }
  }
  for (auto& w : warnings_) warnings->push_back(std::move(w));
  warnings_.clear();
  return Status::OK();
}

Status PartitionSet::Load(Timestamp start, Slot* slot) {
  slot->last_use_ms = env_->NowMs();
  if (slot->part) return Status::OK();
  auto p = std::make_unique<Partition>(env_, DirOf(start, slot->end), start, slot->end,
                                       window_bytes_);
  SUNDIAL_RETURN_IF_ERROR(p->Open(&warnings_, slot->cut));
  slot->cut = false;
  // Closed without a sync: it syncs as an open partition now (once).
  if (unsynced_.erase(start) != 0) p->MarkUnsynced();
  slot->part = std::move(p);
  CloseLeastRecent(start);
  return Status::OK();
}

void PartitionSet::CloseLeastRecent(Timestamp keep) {
  size_t open = 0;
  for (auto& kv : slots_) open += kv.second.part ? 1 : 0;
  while (open > max_open_) {
    Slot* victim = nullptr;
    for (auto& [s, slot] : slots_) {
      if (!slot.part || s == keep || slot.part->pinned()) continue;
      if (victim == nullptr || slot.last_use_ms < victim->last_use_ms) victim = &slot;
    }
    // Everything pinned (or the index not writable): go over the limit.
    if (victim == nullptr) return;
    Timestamp victim_start = 0;
    for (auto& [s, slot] : slots_) {
      if (&slot == victim) victim_start = s;
    }
    if (!CloseQuietly(victim_start, victim)) return;
    --open;
    lru_closes_.fetch_add(1, std::memory_order_relaxed);
  }
}

PartitionSet::Slot* PartitionSet::SlotOf(Timestamp t, Timestamp* start) {
  auto it = slots_.upper_bound(t);
  if (it != slots_.begin()) {
    auto prev = std::prev(it);
    if (t < prev->second.end) {
      *start = prev->first;
      return &prev->second;
    }
  }
  Timestamp s = FloorDiv(t, duration_) * duration_;
  Timestamp end = s + duration_;
  if (it != slots_.begin()) s = std::max(s, std::prev(it)->second.end);
  if (it != slots_.end()) end = std::min(end, it->first);
  Slot& slot = slots_[s];
  slot.end = end;
  *start = s;
  return &slot;
}

Status PartitionSet::Locate(Timestamp t, PartitionRef* out) {
  MutexLock lock(&mu_);
  Timestamp start = 0;
  Slot* slot = SlotOf(t, &start);
  SUNDIAL_RETURN_IF_ERROR(Load(start, slot));
  *out = PartitionRef(slot->part.get());
  return Status::OK();
}

void PartitionSet::RangeOf(Timestamp t, Timestamp* start, Timestamp* end) {
  MutexLock lock(&mu_);
  *end = SlotOf(t, start)->end;
}

std::vector<PartitionRef> PartitionSet::Overlapping(Timestamp start, Timestamp end) {
  std::vector<PartitionRef> out;
  MutexLock lock(&mu_);
  for (auto& [s, slot] : slots_) {
    if (s > end) break;
    if (slot.end <= start) continue;
    Status st = Load(s, &slot);
    if (!st.ok()) {
      warnings_.push_back(st.ToString());
      continue;
    }
    out.push_back(PartitionRef(slot.part.get()));
  }
  return out;
}

Timestamp PartitionSet::NewestStart() {
  MutexLock lock(&mu_);
  return slots_.empty() ? kMinTimestamp : slots_.rbegin()->first;
}

std::vector<std::pair<Timestamp, Timestamp>> PartitionSet::Ranges() {
  MutexLock lock(&mu_);
  std::vector<std::pair<Timestamp, Timestamp>> out;
  for (const auto& kv : slots_) out.emplace_back(kv.first, kv.second.end);
  return out;
}

Status PartitionSet::SyncAll() {
  std::vector<PartitionRef> open;
  {
    MutexLock lock(&mu_);
    for (auto& kv : slots_) {
      if (kv.second.part) open.push_back(PartitionRef(kv.second.part.get()));
    }
  }
  for (auto& p : open) SUNDIAL_RETURN_IF_ERROR(p->Sync());
  return SyncClosed();
}

void PartitionSet::FreeRetired() {
  for (size_t i = 0; i < retired_.size();) {
    if (retired_[i]->pinned()) {
      ++i;
    } else {
      retired_.erase(retired_.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

std::vector<Timestamp> PartitionSet::WithPageFiles(Timestamp cutoff) {
  MutexLock lock(&mu_);
  std::vector<Timestamp> out;
  for (const auto& kv : slots_) {
    if (kv.second.end > cutoff) break;
    if (env_->FileExists(DirOf(kv.first, kv.second.end) + "/pages")) out.push_back(kv.first);
  }
  return out;
}

Status PartitionSet::Exclusive(Timestamp start, const std::function<Status(Partition*)>& fn) {
  MutexLock lock(&mu_);
  auto it = slots_.find(start);
  if (it == slots_.end()) return Status::NotFound("no partition starts at", std::to_string(start));
  SUNDIAL_RETURN_IF_ERROR(Load(start, &it->second));
  if (it->second.part->pinned()) return Status::Busy("partition in use");
  return fn(it->second.part.get());
}

void PartitionSet::EvictIdle(int64_t before_ms, Timestamp keep_after) {
  MutexLock lock(&mu_);
  FreeRetired();
  for (auto& kv : slots_) {
    Slot& slot = kv.second;
    if (!slot.part || slot.end > keep_after || slot.last_use_ms >= before_ms) continue;
    if (slot.part->pinned()) continue;  // in use by a reader or writer
    (void)CloseQuietly(kv.first, &slot);  // on failure it stays open
  }
}

bool PartitionSet::CloseQuietly(Timestamp start, Slot* slot) {
  bool unsynced = false;
  if (!slot->part->PrepareClose(&unsynced).ok()) return false;
  if (unsynced) unsynced_[start] = slot->end;
  slot->part.reset();
  return true;
}

Status PartitionSet::SyncClosed() {
  std::map<Timestamp, Timestamp> todo;
  {
    MutexLock lock(&mu_);
    todo.swap(unsynced_);
  }
  Status result;
  for (auto it = todo.begin(); it != todo.end();) {
    const Status s = Partition::SyncFiles(env_, DirOf(it->first, it->second));
    if (!s.ok()) {
      result = s;
      ++it;
      continue;
    }
    it = todo.erase(it);
  }
  if (!todo.empty()) {
    MutexLock lock(&mu_);  // tried again next time
    unsynced_.insert(todo.begin(), todo.end());
  }
  return result;
}

size_t PartitionSet::unsynced_closed() {
  MutexLock lock(&mu_);
  return unsynced_.size();
}

size_t PartitionSet::DropBefore(Timestamp cutoff) {
  std::vector<std::string> dirs;
  {
    MutexLock lock(&mu_);
    for (auto it = slots_.begin(); it != slots_.end() && it->second.end <= cutoff;) {
      dirs.push_back(DirOf(it->first, it->second.end));
      unsynced_.erase(it->first);
      if (it->second.part) retired_.push_back(std::move(it->second.part));
      it = slots_.erase(it);
    }
    // After the erase: a reader that sees the old count may have read the
    // dropped partitions, one that sees the new count cannot.
    if (!dirs.empty()) removals_.fetch_add(1);
    FreeRetired();
  }
  // Whatever files the partition has (pages, index, cold, leftovers), then
  // the directory.
  for (const auto& d : dirs) {
    std::vector<std::string> names;
    (void)env_->ListDir(d, &names);
    for (const std::string& n : names) (void)env_->RemoveFile(d + "/" + n);
    (void)env_->RemoveDir(d);
  }
  return dirs.size();
}

std::vector<std::string> PartitionSet::TakeWarnings() {
  MutexLock lock(&mu_);
  std::vector<std::string> w;
  w.swap(warnings_);
  return w;
}

size_t PartitionSet::MemoryUsage() {
  MutexLock lock(&mu_);
  size_t bytes = slots_.size() * 64;
  for (auto& kv : slots_) {
    if (kv.second.part) bytes += kv.second.part->MemoryUsage();
  }
  return bytes;
}

uint64_t PartitionSet::DiskBytes() {
  MutexLock lock(&mu_);
  uint64_t bytes = 0;
  for (auto& kv : slots_) {
    if (kv.second.part) bytes += kv.second.part->file_bytes();
  }
  return bytes;
}

size_t PartitionSet::OpenCount() {
  MutexLock lock(&mu_);
  size_t n = 0;
  for (auto& kv : slots_) n += kv.second.part ? 1 : 0;
  return n;
}

uint64_t PartitionSet::PageCount() {
  MutexLock lock(&mu_);
  uint64_t n = 0;
  for (auto& kv : slots_) {
    if (kv.second.part) n += kv.second.part->page_count();
  }
  return n;
}

}  // namespace sundial::storage
