// RollupStore: state, dirty marks, the late-point observer, readers and
// cursors. The build passes are in rollup_builder.cc.
#include "sundial/rollup/rollup_store.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include "rollup/file_util.h"
#include "sundial/common/coding.h"
#include "sundial/common/crc32c.h"

namespace sundial::rollup {
namespace {

constexpr uint32_t kStateVersion = 2;  // 1: without the WAL segment
constexpr uint32_t kKindPair = 1;
constexpr uint32_t kKindDay = 2;

void PutPair(SeriesId id, Timestamp hour, std::string* out) {
  PutVarint32(out, kKindPair);
  PutVarint32(out, id);
  PutVarint64(out, ZigZagEncode64(hour));
}
void PutDay(Timestamp day, std::string* out) {
  PutVarint32(out, kKindDay);
  PutVarint64(out, ZigZagEncode64(day));
}

constexpr int32_t kNoMark = INT32_MIN;

// Hours since the epoch as the mark cache keeps them (kNoMark if out of range).
int32_t HourIndex(Timestamp hour) {
  const Timestamp h = hour / kHourMs;
  return h > INT32_MIN && h <= INT32_MAX ? static_cast<int32_t>(h) : kNoMark;
}

std::string FrameRecord(const std::string& payload) {
  std::string rec;
  PutFixed32(&rec, static_cast<uint32_t>(payload.size()));
  PutFixed32(&rec, crc32c::Mask(crc32c::Value(payload.data(), payload.size())));
  rec += payload;
  return rec;
}

}  // namespace

RollupStore::RollupStore(const RollupOptions& options)
    : options_(options),
      owned_env_(options.env == nullptr ? NewPosixEnv() : nullptr),
      env_(options.env != nullptr ? options.env : owned_env_.get()),
      mark_blocks_(new std::atomic<std::atomic<int32_t>*>[kMarkBlocks]) {
  for (uint32_t i = 0; i < kMarkBlocks; ++i) mark_blocks_[i].store(nullptr);
}

RollupStore::~RollupStore() {
  Stop();
  for (uint32_t i = 0; i < kMarkBlocks; ++i) delete[] mark_blocks_[i].load();
  MutexLock lock(&mu_);
  if (dirty_file_ != nullptr && dirty_unsynced_) (void)dirty_file_->Sync();
  dirty_file_.reset();
}

int64_t RollupStore::NowMs() const {
  if (options_.clock) return options_.clock();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Status RollupStore::Open(const RollupOptions& options, std::unique_ptr<RollupStore>* out) {
  if (options.dir.empty()) return Status::InvalidArgument("rollup: dir is empty");
  std::unique_ptr<RollupStore> store(new RollupStore(options));
  SUNDIAL_RETURN_IF_ERROR(store->Load());
  *out = std::move(store);
  return Status::OK();
}

Status RollupStore::Invalidate(const std::string& dir, Env* env) {
  std::unique_ptr<Env> posix;
  if (env == nullptr) {
    posix = NewPosixEnv();
    env = posix.get();
  }
  return RemoveFileIfExists(env, dir + "/STATE");
}

Status RollupStore::Load() {
  SUNDIAL_RETURN_IF_ERROR(env_->CreateDir(options_.dir));
  std::string state;
  Status s = env_->ReadFileToString(options_.dir + "/STATE", &state);
  MutexLock lock(&mu_);
  if (s.ok()) {
    const uint32_t version = state.size() >= 4 ? DecodeFixed32(state.data()) : 0;
    const size_t body = version == 1 ? 12 : 20;
    if ((version != 1 && version != kStateVersion) || state.size() != body + 4 ||
        crc32c::Unmask(DecodeFixed32(state.data() + body)) != crc32c::Value(state.data(), body)) {
      // Unknown watermark: rebuild everything (the files are checked again).
      built_mark_ = kMinTimestamp;
    } else {
      built_mark_ = static_cast<Timestamp>(DecodeFixed64(state.data() + 4));
      if (version == kStateVersion) wal_seen_.store(DecodeFixed64(state.data() + 12));
    }
  } else if (!s.IsNotFound()) {
    return s;
  }
  late_mark_.store(built_mark_);
  stats_.watermark = built_mark_;
  // Dirty marks: every sound record, up to the first torn or damaged one.
  std::string log;
  s = env_->ReadFileToString(options_.dir + "/dirty.log", &log);
  if (!s.ok() && !s.IsNotFound()) return s;
  std::string_view in(log);
  while (in.size() >= 8) {
    const uint32_t len = DecodeFixed32(in.data());
    const uint32_t crc = crc32c::Unmask(DecodeFixed32(in.data() + 4));
    if (in.size() - 8 < len) break;
    std::string_view payload(in.data() + 8, len);
    if (crc32c::Value(payload.data(), payload.size()) != crc) break;
    in.remove_prefix(8 + len);
    uint32_t kind = 0, id = 0;
    uint64_t zz = 0;
    while (!payload.empty()) {
      if (!GetVarint32(&payload, &kind)) break;
      if (kind == kKindPair && GetVarint32(&payload, &id) && GetVarint64(&payload, &zz)) {
        dirty_pairs_[{id, HourOf(ZigZagDecode64(zz))}] = ++mark_seq_;
      } else if (kind == kKindDay && GetVarint64(&payload, &zz)) {
        dirty_days_[DayOf(ZigZagDecode64(zz))] = ++mark_seq_;
      } else {
        break;
      }
    }
  }
  // A full disk must not keep the server from starting: the marks stay in
  // memory and SyncLate reports the failure until a rewrite succeeds.
  (void)RewriteDirtyLogLocked();
  return Status::OK();
}

Status RollupStore::RewriteDirtyLogLocked() const {
  std::string payload;
  for (const auto& kv : dirty_days_) PutDay(kv.first, &payload);
  for (const auto& kv : dirty_pairs_) PutPair(kv.first.first, kv.first.second, &payload);
  const std::string path = options_.dir + "/dirty.log";
  const std::string data = payload.empty() ? std::string() : FrameRecord(payload);
  dirty_file_.reset();
  SUNDIAL_RETURN_IF_ERROR(ReplaceFile(env_, path, data));
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(path, &f));
  dirty_file_ = std::move(f);
  dirty_size_ = data.size();
  dirty_unsynced_ = false;
  return Status::OK();
}

void RollupStore::AppendDirtyLocked(const std::string& entries) const {
  if (entries.empty() || dirty_file_ == nullptr) return;
  // A failed (maybe torn) write is caught up by the next rewrite, which
  // SyncLate forces; a torn tail is cut off by the CRC when loading.
  const std::string rec = FrameRecord(entries);
  if (!dirty_file_->Write(dirty_size_, rec.data(), rec.size()).ok()) {
    dirty_file_.reset();
  } else {
    dirty_size_ += rec.size();
  }
  dirty_unsynced_ = true;
}

void RollupStore::MarkDayLocked(Timestamp day) const {
  dirty_days_[day] = ++mark_seq_;
  std::string entry;
  PutDay(day, &entry);
  AppendDirtyLocked(entry);
}

std::atomic<int32_t>* RollupStore::MarkSlot(SeriesId id, bool create) const {
  const uint32_t b = id >> kMarkBlockBits;
  if (b >= kMarkBlocks) return nullptr;
  std::atomic<int32_t>* block = mark_blocks_[b].load();
  if (block == nullptr && create) {
    block = new std::atomic<int32_t>[size_t{1} << kMarkBlockBits];
    for (uint32_t i = 0; i < (1u << kMarkBlockBits); ++i) block[i].store(kNoMark);
    mark_blocks_[b].store(block);
  }
  return block == nullptr ? nullptr : &block[id & ((1u << kMarkBlockBits) - 1)];
}

void RollupStore::ForgetMarksLocked(SeriesId id) const {
  if (id != kInvalidSeriesId) {
    if (auto* slot = MarkSlot(id, false)) slot->store(kNoMark);
    return;
  }
  for (uint32_t b = 0; b < kMarkBlocks; ++b) {
    std::atomic<int32_t>* block = mark_blocks_[b].load();
    if (block == nullptr) continue;
    for (uint32_t i = 0; i < (1u << kMarkBlockBits); ++i) block[i].store(kNoMark);
  }
}

void RollupStore::OnLateAppend(const storage::SeriesPoint* points, size_t n) {
  const Timestamp mark = late_mark_.load();
  // Lock-free pass: points of an hour already marked for their series are
  // done (the common case in a backfill). A builder forgets the cached
  // marks of what it is about to read before reading it, so a hit here
  // means the mark is newer than any rebuild in progress.
  thread_local std::vector<size_t> todo;
  todo.clear();
  for (size_t i = 0; i < n; ++i) {
    if (points[i].t >= mark) continue;
    const int32_t h = HourIndex(HourOf(points[i].t));
    const std::atomic<int32_t>* slot = MarkSlot(points[i].series, false);
    if (h != kNoMark && slot != nullptr && slot->load() == h) continue;
    todo.push_back(i);
  }
  if (todo.empty()) return;
  std::string entries;
  MutexLock lock(&mu_);
  for (size_t i : todo) {
    const Timestamp hour = HourOf(points[i].t);
    if (auto* slot = MarkSlot(points[i].series, true)) slot->store(HourIndex(hour));
    const Timestamp day = DayOf(hour);
    auto d = dirty_days_.find(day);
    if (d != dirty_days_.end()) {
      d->second = ++mark_seq_;
      continue;
    }
    auto [it, inserted] = dirty_pairs_.try_emplace({points[i].series, hour}, 0);
    it->second = ++mark_seq_;
    if (!inserted) continue;
    ++stats_.late_marks;
    PutPair(points[i].series, hour, &entries);
  }
  if (dirty_pairs_.size() > options_.max_dirty_pairs) {
    // Too many single hours: whole days are cheaper to keep and rebuild.
    entries.clear();
    for (const auto& kv : dirty_pairs_) {
      const Timestamp day = DayOf(kv.first.second);
      if (dirty_days_.count(day) == 0) PutDay(day, &entries);
      dirty_days_[day] = ++mark_seq_;
    }
    dirty_pairs_.clear();
  }
  AppendDirtyLocked(entries);
}

Status RollupStore::SyncLate() {
  MutexLock lock(&mu_);
  if (dirty_file_ == nullptr) return RewriteDirtyLogLocked();
  if (dirty_unsynced_) {
    const Status s = dirty_file_->Sync();
    if (!s.ok()) {
      dirty_file_.reset();  // rewritten whole by the next SyncLate
      return s;
    }
  }
  dirty_unsynced_ = false;
  return Status::OK();
}

Status RollupStore::WriteState(Timestamp watermark) {
  std::string state;
  PutFixed32(&state, kStateVersion);
  PutFixed64(&state, static_cast<uint64_t>(watermark));
  PutFixed64(&state, wal_seen_.load());
  PutFixed32(&state, crc32c::Mask(crc32c::Value(state.data(), state.size())));
  return ReplaceFile(env_, options_.dir + "/STATE", state);
}

bool RollupStore::HasState() const { return env_->FileExists(options_.dir + "/STATE"); }

std::shared_ptr<const DayFileReader> RollupStore::Reader(Timestamp day) const {
  {
    MutexLock lock(&mu_);
    auto it = readers_.find(day);
    if (it != readers_.end()) {
      it->second.second = ++use_clock_;
      return it->second.first;
    }
  }
  std::unique_ptr<DayFileReader> r;
  Status s = DayFileReader::Open(env_, options_.dir + "/" + DayFileName(day), day, &r);
  MutexLock lock(&mu_);
  if (!s.ok()) {
    // Damaged: rebuild it. Missing: nothing to read (raw answers).
    if (!s.IsNotFound() && DayOf(day) < built_mark_ && dirty_days_.count(day) == 0) {
      MarkDayLocked(day);
    }
    return nullptr;
  }
  auto it = readers_.find(day);  // another thread may have opened it meanwhile
  if (it != readers_.end()) return it->second.first;
  std::shared_ptr<const DayFileReader> shared(std::move(r));
  readers_[day] = {shared, ++use_clock_};
  while (readers_.size() > std::max<size_t>(1, options_.max_open_days)) {
    auto oldest = readers_.begin();
    for (auto i = readers_.begin(); i != readers_.end(); ++i) {
      if (i->second.second < oldest->second.second) oldest = i;
    }
    readers_.erase(oldest);
  }
  return shared;
}

std::unique_ptr<HourCursor> RollupStore::NewCursor(SeriesId id, Timestamp start,
                                                   Timestamp end) const {
  std::unique_ptr<HourCursor> c(new HourCursor);
  c->store_ = this;
  c->id_ = id;
  MutexLock lock(&mu_);
  c->watermark_ = built_mark_;
  for (auto it = dirty_pairs_.lower_bound({id, start});
       it != dirty_pairs_.end() && it->first.first == id && it->first.second < end; ++it) {
    c->dirty_hours_.push_back(it->first.second);
  }
  for (auto it = dirty_days_.lower_bound(DayOf(start)); it != dirty_days_.end() && it->first < end;
       ++it) {
    c->dirty_days_.push_back(it->first);
  }
  return c;
}

HourCursor::~HourCursor() {
  if (store_ != nullptr && rolled_ > 0) store_->hours_read_.fetch_add(rolled_, std::memory_order_relaxed);
}

HourState HourCursor::Get(Timestamp hour, HourStats* out) {
  if (hour >= watermark_) return HourState::kRaw;
  while (dirty_pos_ < dirty_hours_.size() && dirty_hours_[dirty_pos_] < hour) ++dirty_pos_;
  if (dirty_pos_ < dirty_hours_.size() && dirty_hours_[dirty_pos_] == hour) return HourState::kRaw;
  const Timestamp day = DayOf(hour);
  if (std::binary_search(dirty_days_.begin(), dirty_days_.end(), day)) return HourState::kRaw;
  if (day != day_) {
    day_ = day;
    pos_ = 0;
    hours_.clear();
    auto reader = store_->Reader(day);
    day_ok_ = reader != nullptr && reader->Read(id_, &hours_).ok();
    if (reader != nullptr && !day_ok_) {
      MutexLock lock(&store_->mu_);
      if (store_->dirty_days_.count(day) == 0) store_->MarkDayLocked(day);
    }
  }
  if (!day_ok_) return HourState::kRaw;
  while (pos_ < hours_.size() && hours_[pos_].hour < hour) ++pos_;
  if (pos_ < hours_.size() && hours_[pos_].hour == hour) {
    *out = hours_[pos_];
    ++rolled_;
    return HourState::kRolled;
  }
  return HourState::kEmpty;
}

RollupStats RollupStore::stats() const {
  MutexLock lock(&mu_);
  RollupStats s = stats_;
  s.dirty_pending = dirty_pairs_.size() + dirty_days_.size();
  s.watermark = built_mark_;
  s.hours_read = hours_read_.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sundial::rollup
