// Partition's side of compaction: opening the cold file, finishing or
// undoing an interrupted compaction, and installing a new cold file.
#include <algorithm>

#include "storage/partition.h"
#include "storage/record_log.h"
#include "sundial/common/crc32c.h"

namespace sundial::storage {

ColdFile* Partition::cold() {
  MutexLock lock(&mu_);
  return cold_.get();
}

uint64_t Partition::WillReadCold(const std::vector<SeriesId>& ids, uint64_t max_bytes,
                                 size_t* covered) {
  const ColdFile* c = cold();
  *covered = ids.size();
  return c == nullptr ? 0 : c->WillNeed(ids, max_bytes, covered);
}

Status Partition::OpenCold(std::vector<std::string>* warnings) {
  const std::string tmp = dir_ + "/cold.tmp";
  if (env_->FileExists(tmp)) {
    SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(tmp));  // an unfinished compaction
  }
  const std::string path = dir_ + "/cold";
  if (!env_->FileExists(path)) return Status::OK();
  Status s = ColdFile::Open(env_, path, start_, end_, &cold_);
  if (!s.ok()) {
    cold_.reset();
    warnings->push_back(dir_ + ": cold file unreadable, its points are skipped: " + s.ToString());
    return Status::OK();
  }
  if (!cold_->recovered().empty()) {
    warnings->push_back(dir_ + ": cold file index lost (" + cold_->recovered() + "); " +
                        std::to_string(cold_->SeriesIds().size()) +
                        " series blocks recovered by scanning");
  }
  const std::string pages = dir_ + "/pages";
  if (!env_->FileExists(pages)) return Status::OK();
  PageFile old(env_, pages, window_bytes_);
  SUNDIAL_RETURN_IF_ERROR(old.Open());
  if (old.file_id() != cold_->replaced_page_file_id()) {
    return Status::OK();  // pages written after the compaction
  }
  // Its pages are all in the cold file: the compaction stopped before
  // removing it.
  if (env_->FileExists(dir_ + "/index")) SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(dir_ + "/index"));
  SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(pages));
  SUNDIAL_RETURN_IF_ERROR(env_->SyncDir(dir_));
  warnings->push_back(dir_ + ": finished an interrupted compaction");
  return Status::OK();
}

uint32_t Partition::NewPageFileId() {
  // Any id works that differs from the one the cold file replaced; the
  // clock and the directory make ids of different partitions differ too.
  const std::string seed = dir_ + "@" + std::to_string(env_->NowMs());
  uint32_t id = crc32c::Value(seed.data(), seed.size());
  if (cold_ && id == cold_->replaced_page_file_id()) ++id;
  return id == 0 ? 1 : id;
}

void Partition::ClearEntries() {
  blocks_.clear();
  entry_count_ = 0;
  last_.clear();
  ClearBuffer();
  index_end_ = 0;
  dirty_ = false;
}

std::vector<SeriesId> Partition::SeriesIds() {
  std::vector<SeriesId> ids;
  if (ColdFile* c = cold()) ids = c->SeriesIds();
  {
    MutexLock lock(&mu_);
    for (SeriesId id = 0; id < last_.size(); ++id) {
      if (last_[id] != 0) ids.push_back(id);
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool Partition::HasPageFile() {
  MutexLock lock(&mu_);
  return pages_ != nullptr;
}

bool Partition::ColdId(uint32_t* id) {
  MutexLock lock(&mu_);
  *id = cold_ ? cold_->replaced_page_file_id() : 0;
  return cold_ != nullptr;
}

uint32_t Partition::PageFileId() {
  MutexLock lock(&mu_);
  return pages_ ? pages_->file_id() : 0;
}

Status Partition::ReplaceCold(const std::string& tmp_path) {
  MutexLock lock(&mu_);
  if (pages_ || !cold_) return Status::InvalidArgument(dir_, "not a cold-only partition");
  const std::string path = dir_ + "/cold";
  SUNDIAL_RETURN_IF_ERROR(env_->RenameFile(tmp_path, path));
  SUNDIAL_RETURN_IF_ERROR(env_->SyncDir(dir_));
  std::unique_ptr<ColdFile> fresh;
  SUNDIAL_RETURN_IF_ERROR(ColdFile::Open(env_, path, start_, end_, &fresh));
  cold_ = std::move(fresh);
  return Status::OK();
}

Status Partition::InstallCold(const std::string& tmp_path, uint32_t replaced_id,
                              uint64_t replaced_size) {
  MutexLock lock(&mu_);
  if (!pages_ || pages_->file_id() != replaced_id || pages_->size() != replaced_size) {
    return Status::InvalidArgument(dir_, "page file changed during compaction");
  }
  const std::string path = dir_ + "/cold";
  SUNDIAL_RETURN_IF_ERROR(env_->RenameFile(tmp_path, path));
  SUNDIAL_RETURN_IF_ERROR(env_->SyncDir(dir_));
  // From here the cold file is authoritative: at Open, a page file with
  // replaced_id is removed.
  std::unique_ptr<ColdFile> fresh;
  SUNDIAL_RETURN_IF_ERROR(ColdFile::Open(env_, path, start_, end_, &fresh));
  cold_ = std::move(fresh);
  pages_.reset();
  index_.reset();
  ClearEntries();
  // The index first: a page file without one is opened (and, as a leftover,
  // removed) at the next start; an index without a page file is reported.
  if (env_->FileExists(dir_ + "/index")) SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(dir_ + "/index"));
  SUNDIAL_RETURN_IF_ERROR(env_->RemoveFile(dir_ + "/pages"));
  return env_->SyncDir(dir_);
}

Status Partition::ReadColdPoints(SeriesId series, const PageRef& ref,
                                 std::vector<Timestamp>* ts, std::vector<Value>* vs,
                                 bool* columnar) {
  *columnar = false;
  ColdFile* c = ref.cold ? cold() : nullptr;
  if (c == nullptr) return Status::OK();
  return c->ReadPoints(
      series, ColdPage{static_cast<uint32_t>(ref.offset), ref.len, ref.min_t, ref.max_t}, ts, vs,
      columnar);
}

}  // namespace sundial::storage
