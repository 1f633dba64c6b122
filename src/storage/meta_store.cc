#include "sundial/storage/meta_store.h"

#include "storage/record_log.h"
#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

constexpr char kMagic[] = "SUNDMET1";
constexpr uint8_t kPutRecord = 1;
constexpr uint8_t kDeleteRecord = 2;

void EncodeOp(const MetaStore::Op& op, std::string* dst) {
  if (op.erase) {
    AppendLogRecord(dst, kDeleteRecord, op.key);
    return;
  }
  std::string payload;
  payload.reserve(op.key.size() + op.value.size() + 5);
  PutLengthPrefixed(&payload, op.key);
  payload.append(op.value);
  AppendLogRecord(dst, kPutRecord, payload);
}

}  // namespace

bool DecodeMetaRecord(uint8_t type, std::string_view payload, MetaStore::Op* op) {
  if (type == kDeleteRecord) {
    if (payload.empty() || payload.size() > MetaStore::kMaxKeyBytes) return false;
    op->key.assign(payload);
    op->value.clear();
    op->erase = true;
    return true;
  }
  if (type != kPutRecord) return false;
  std::string_view key;
  if (!GetLengthPrefixed(&payload, &key) || key.empty() || key.size() > MetaStore::kMaxKeyBytes ||
      payload.size() > MetaStore::kMaxValueBytes) {
    return false;
  }
  op->key.assign(key);
  op->value.assign(payload);
  op->erase = false;
  return true;
}

MetaStore::MetaStore(Env* env, std::string dir, uint64_t max_bytes)
    : env_(env),
      dir_(std::move(dir)),
      path_(dir_ + "/" + std::string(kFileName)),
      max_bytes_(max_bytes) {}

Status MetaStore::Open(Env* env, const std::string& dir, std::unique_ptr<MetaStore>* out,
                       std::vector<std::string>* warnings, uint64_t max_bytes) {
  std::unique_ptr<MetaStore> store(new MetaStore(env, dir, max_bytes));
  {
    MutexLock l(&store->mu_);
    SUNDIAL_RETURN_IF_ERROR(store->Load(warnings));
    if (max_bytes != 0 && store->live_bytes_ > max_bytes) {
      warnings->push_back(store->path_ + ": holds " + std::to_string(store->live_bytes_) +
                          " bytes, over its bound of " + std::to_string(max_bytes) +
                          "; changes that add data are refused until some are deleted");
    }
  }
  *out = std::move(store);
  return Status::OK();
}

namespace {
uint64_t EntryBytes(std::string_view key, std::string_view value) {
  return key.size() + value.size() + MetaStore::kEntryBytes;
}
}  // namespace

void MetaStore::ApplyToMap(const Op& op) {
  auto it = map_.find(op.key);
  if (op.erase) {
    // The delete record and the put it cancels are both dead.
    if (it != map_.end()) {
      live_bytes_ -= EntryBytes(it->first, it->second);
      map_.erase(it);
      dead_ += 2;
    } else {
      dead_ += 1;
    }
    return;
  }
  if (it != map_.end()) {
    live_bytes_ -= it->second.size();
    live_bytes_ += op.value.size();
    it->second = op.value;
    dead_ += 1;
  } else {
    live_bytes_ += EntryBytes(op.key, op.value);
    map_.emplace(op.key, op.value);
  }
}

uint64_t MetaStore::LiveBytesAfter(const std::vector<Op>& ops) const {
  // The entry bytes of each key the ops touch, as the batch leaves it
  // (0: absent); keys a batch repeats count once, with their last op.
  std::map<std::string_view, uint64_t> after;
  for (const Op& op : ops) after[op.key] = op.erase ? 0 : EntryBytes(op.key, op.value);
  uint64_t live = live_bytes_;
  for (const auto& [key, bytes] : after) {
    auto it = map_.find(key);
    if (it != map_.end()) live -= EntryBytes(it->first, it->second);
    live += bytes;
  }
  return live;
}

Status MetaStore::Load(std::vector<std::string>* warnings) {
  const std::string tmp = path_ + ".tmp";
  if (env_->FileExists(tmp)) (void)env_->RemoveFile(tmp);  // an unfinished rewrite
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(path_, &file_));
  uint64_t size = 0;
  SUNDIAL_RETURN_IF_ERROR(file_->Size(&size));
  bool damaged = false;
  if (size >= kLogFileHeaderSize) {
    LogReader reader(file_.get(), size, kMagic);
    Status s = reader.Open();
    if (s.IsCorruption()) {
      warnings->push_back(s.ToString() + "; reading the records after it");
      reader.OpenSkippingHeader();
      damaged = true;
    } else if (!s.ok()) {
      return s;
    }
    uint8_t type;
    std::string_view payload;
    Op op;
    while (reader.Next(&type, &payload)) {
      if (!DecodeMetaRecord(type, payload, &op)) {
        warnings->push_back(path_ + ": malformed record skipped");
        damaged = true;
        continue;
      }
      ApplyToMap(op);
    }
    SUNDIAL_RETURN_IF_ERROR(reader.status());
    for (const auto& w : reader.skipped()) warnings->push_back(w);
    damaged = damaged || !reader.skipped().empty();
  } else if (size > 0) {
    warnings->push_back(path_ + ": header torn, starting an empty meta store");
  }
  if (size >= kLogFileHeaderSize && !damaged && dead_ <= map_.size()) {
    file_end_ = size;
    return Status::OK();
  }
  const Status s = Rewrite();
  if (s.ok() || size < kLogFileHeaderSize) return s;
  // A full disk, say. The old file stays usable: records appended after
  // damage are still found (each has its CRC and the reader resynchronises).
  warnings->push_back(path_ + ": not rewritten (" + s.ToString() + "); appending to it as it is");
  file_end_ = size;
  return Status::OK();
}

std::string MetaStore::EncodeLiveMap() const {
  std::string data = LogFileHeader(kMagic);
  for (const auto& [k, v] : map_) EncodeOp(Op{k, v, false}, &data);
  return data;
}

Status MetaStore::CaptureSnapshot(std::string* contents) {
  MutexLock l(&mu_);
  *contents = EncodeLiveMap();
  return Status::OK();
}

Status MetaStore::Rewrite() {
  const std::string tmp = path_ + ".tmp";
  const std::string data = EncodeLiveMap();
  std::unique_ptr<File> f;
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(tmp, &f));
  Status s = f->Truncate(0);
  if (s.ok()) s = f->Write(0, data.data(), data.size());
  if (s.ok()) s = f->Sync();
  f.reset();
  if (s.ok()) s = env_->RenameFile(tmp, path_);
  if (s.ok()) s = env_->SyncDir(dir_);
  if (!s.ok()) {
    (void)env_->RemoveFile(tmp);
    return s.WithContext("meta store rewrite");
  }
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(path_, &file_));
  file_end_ = data.size();
  dead_ = 0;
  ++rewrites_;
  return Status::OK();
}

Status MetaStore::Apply(const std::vector<Op>& ops) {
  std::string data;
  for (const Op& op : ops) {
    if (op.key.empty() || op.key.size() > kMaxKeyBytes) {
      return Status::InvalidArgument("meta key length out of range");
    }
    if (op.value.size() > kMaxValueBytes) {
      return Status::InvalidArgument("meta value too large");
    }
    EncodeOp(op, &data);
  }
  if (data.empty()) return Status::OK();
  MutexLock l(&mu_);
  if (max_bytes_ != 0) {
    const uint64_t after = LiveBytesAfter(ops);
    if (after > max_bytes_ && after > live_bytes_) {
      return Status::ResourceExhausted("meta data store is full: the change would take it to " +
                                       std::to_string(after) + " bytes, over its bound of " +
                                       std::to_string(max_bytes_));
    }
  }
  Status s = file_->Write(file_end_, data.data(), data.size());
  if (s.ok()) s = file_->Sync();
  if (!s.ok()) {
    (void)file_->Truncate(file_end_);  // best effort: no half batch stays
    return s.WithContext("meta store");
  }
  file_end_ += data.size();
  for (const Op& op : ops) ApplyToMap(op);
  if (dead_ >= kCompactMinDead && dead_ > map_.size()) {
    // The change is durable already; a failed rewrite only leaves the
    // longer log in place (the rename is atomic).
    (void)Rewrite();
  }
  return Status::OK();
}

Status MetaStore::Put(std::string key, std::string value) {
  return Apply({Op{std::move(key), std::move(value), false}});
}

Status MetaStore::Delete(std::string key) { return Apply({Op{std::move(key), {}, true}}); }

bool MetaStore::Get(std::string_view key, std::string* value) const {
  MutexLock l(&mu_);
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  *value = it->second;
  return true;
}

std::vector<std::pair<std::string, std::string>> MetaStore::Range(std::string_view begin,
                                                                   std::string_view end) const {
  MutexLock l(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = map_.lower_bound(begin); it != map_.end(); ++it) {
    if (!end.empty() && std::string_view(it->first) >= end) break;
    out.emplace_back(it->first, it->second);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> MetaStore::Prefix(std::string_view prefix) const {
  MutexLock l(&mu_);
  std::vector<std::pair<std::string, std::string>> out;
  for (auto it = map_.lower_bound(prefix); it != map_.end(); ++it) {
    if (std::string_view(it->first).substr(0, prefix.size()) != prefix) break;
    out.emplace_back(it->first, it->second);
  }
  return out;
}

bool MetaStore::Any(std::string_view begin, std::string_view end) const {
  MutexLock l(&mu_);
  auto it = map_.lower_bound(begin);
  return it != map_.end() && std::string_view(it->first) < end;
}

size_t MetaStore::size() const {
  MutexLock l(&mu_);
  return map_.size();
}

uint64_t MetaStore::live_bytes() const {
  MutexLock l(&mu_);
  return live_bytes_;
}

size_t MetaStore::dead_records() const {
  MutexLock l(&mu_);
  return dead_;
}

uint64_t MetaStore::TEST_rewrites() const {
  MutexLock l(&mu_);
  return rewrites_;
}

}  // namespace sundial::storage
