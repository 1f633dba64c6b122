// StorageImpl's health: the sticky error that stops writes after a failed
// apply, and read-only mode while the disk is full.
//
// Both refuse writes and never affect reads. Read-only mode ends when a WAL
// write succeeds again, or, when no WAL segment could be opened (a start on
// a full disk), when the maintenance thread finds free space and opens one; a stopped engine stays stopped until restart, because
// a point sits in the WAL that memory does not hold: no checkpoint may run
// (it would drop that WAL), and a restart replays it.
#include <string>

#include "storage/storage_impl.h"

namespace sundial::storage {
namespace {

constexpr int64_t kSpaceCheckMs = 5000;

bool IsDiskFull(const Status& s) {
  const std::string m = s.ToString();
  return m.find("No space left") != std::string::npos ||
         m.find("Disk quota exceeded") != std::string::npos;
}

}  // namespace

Status StorageImpl::WriteBlocked() {
  if (!blocked_.load(std::memory_order_acquire)) return Status::OK();
  MutexLock lock(&health_mu_);
  if (!bg_error_.ok()) {
    return Status::Unavailable("storage stopped writes (restart needed)", bg_error_.ToString());
  }
  // With a WAL segment open, the write itself probes for space (and a
  // success ends read-only mode at once, see ClearReadOnly).
  if (!read_only_error_.ok() && !wal_->is_open()) {
    return Status::Unavailable("storage is read-only", read_only_error_.ToString());
  }
  return Status::OK();
}

void StorageImpl::ClearReadOnly(const char* why) {
  {
    MutexLock lock(&health_mu_);
    if (read_only_error_.ok()) return;
    read_only_error_ = Status::OK();
    blocked_.store(!bg_error_.ok(), std::memory_order_release);
  }
  AddWarning(std::string("storage is read-write again: ") + why);
}

void StorageImpl::SetBgError(const Status& s) {
  {
    MutexLock lock(&health_mu_);
    if (!bg_error_.ok()) return;
    bg_error_ = s;
    blocked_.store(true, std::memory_order_release);
  }
  AddWarning("storage stopped writes until restart: " + s.ToString());
}

void StorageImpl::EnterReadOnly(const Status& s) {
  {
    MutexLock lock(&health_mu_);
    if (!read_only_error_.ok()) return;
    read_only_error_ = s;
    blocked_.store(true, std::memory_order_release);
  }
  AddWarning(std::string("storage is read-only") +
             (IsDiskFull(s) ? " (disk full)" : "") + ": " + s.ToString());
}

bool StorageImpl::stopped() {
  MutexLock lock(&health_mu_);
  return !bg_error_.ok();
}

void StorageImpl::MaybeLeaveReadOnly(int64_t now) {
  {
    MutexLock lock(&health_mu_);
    if (read_only_error_.ok()) return;
  }
  if (now - last_space_check_ms_ < kSpaceCheckMs) return;
  last_space_check_ms_ = now;
  uint64_t free_bytes = 0;
  if (!env_->FreeSpace(options_.data_dir, &free_bytes).ok() ||
      free_bytes < options_.resume_free_bytes) {
    return;
  }
  // Pages waiting for the disk go first; the WAL must take writes again.
  if (!WritePending().ok()) return;
  {
    WriterLock gate(&gate_);
    if (!wal_->EnsureOpen().ok()) return;
  }
  ClearReadOnly("disk space returned");
}

StorageHealth StorageImpl::health() {
  StorageHealth h;
  MutexLock lock(&health_mu_);
  h.stopped = !bg_error_.ok();
  h.read_only = h.stopped || !read_only_error_.ok();
  if (h.stopped) {
    h.reason = "writes stopped until restart: " + bg_error_.ToString();
    h.cause = "apply_failed";
  } else if (!read_only_error_.ok()) {
    const bool full = IsDiskFull(read_only_error_);
    h.reason = std::string(full ? "disk full: " : "") + read_only_error_.ToString();
    h.cause = full ? "disk_full" : "io_error";
  }
  return h;
}

}  // namespace sundial::storage
