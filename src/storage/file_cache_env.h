// FileCacheEnv: an Env whose partition files hold no file descriptor while
// idle, so that thousands of partitions never need thousands of them.
//
// Why: a server with years of day partitions must start and answer a query
// over all of them under the default RLIMIT_NOFILE (1024), with room left
// for connections. Files whose path starts with `cached` (the partitions'
// directory) are handed out as proxies: the descriptor is opened on first
// use and kept in an LRU of at most `capacity` descriptors; the least
// recently used one is closed when another must open. A proxy reopens its
// file (without creating it: a file removed meanwhile reads as NotFound) on
// its next use. Memory maps outlive the descriptor they came from, so
// mapped windows stay valid. Other files (WAL, series dictionary) are
// passed through untouched.
//
// Thread-safety: thread-safe. A descriptor in use by one call is closed
// only after that call returns (in-flight calls hold a reference).
#pragma once

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/mutex.h"

namespace sundial::storage {

class FileCacheEnv final : public Env {
 public:
  // base is borrowed and must outlive this Env and every file it opened.
  // Paths starting with cached go through the cache (capacity descriptors
  // at most; 0 counts as 1).
  FileCacheEnv(Env* base, std::string cached, size_t capacity);
  ~FileCacheEnv() override;

  Status OpenFile(const std::string& path, std::unique_ptr<File>* out) override;
  Status OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) override;
  Status OpenReadOnlyFile(const std::string& path, std::unique_ptr<File>* out) override;
  Status GetFileSize(const std::string& p, uint64_t* size) override {
    return base_->GetFileSize(p, size);
  }
  Status FreeSpace(const std::string& p, uint64_t* bytes) override {
    return base_->FreeSpace(p, bytes);
  }
  Status ReadFileToString(const std::string& p, std::string* out) override {
    return base_->ReadFileToString(p, out);
  }
  Status ListDir(const std::string& d, std::vector<std::string>* n) override {
    return base_->ListDir(d, n);
  }
  Status CreateDir(const std::string& d) override { return base_->CreateDir(d); }
  Status RemoveFile(const std::string& p) override { return base_->RemoveFile(p); }
  Status RemoveDir(const std::string& d) override { return base_->RemoveDir(d); }
  Status RenameFile(const std::string& a, const std::string& b) override {
    return base_->RenameFile(a, b);
  }
  Status SyncDir(const std::string& d) override { return base_->SyncDir(d); }
  bool FileExists(const std::string& p) override { return base_->FileExists(p); }
  int64_t NowMs() override { return base_->NowMs(); }

  // Descriptors open now through proxies, and how many were closed to stay
  // within capacity so far.
  size_t open_count();
  uint64_t closes();

 private:
  class CachedFile;
  friend class CachedFile;
  struct Entry;

  // The open file of e, opening it (read-write or read-only as e says) and
  // closing the least recently used others if needed.
  Status Acquire(Entry* e, std::shared_ptr<File>* out) EXCLUDES(mu_);
  void Forget(Entry* e) EXCLUDES(mu_);
  Status Wrap(const std::string& path, bool read_only, std::unique_ptr<File> first,
              std::unique_ptr<File>* out);
  // Opens path with the base Env's `open`; a file under the cached prefix
  // comes back wrapped (see Wrap), any other as the base Env opened it.
  using OpenFn = Status (Env::*)(const std::string&, std::unique_ptr<File>*);
  Status OpenThrough(OpenFn open, const std::string& path, bool read_only,
                     std::unique_ptr<File>* out);

  Env* const base_;
  const std::string cached_;
  const size_t capacity_;
  Mutex mu_;
  std::list<Entry*> lru_ GUARDED_BY(mu_);  // entries with an open file, most recent first
  uint64_t closes_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::storage
