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

class FileCacheEnv final : public EnvWrapper {
 public:
  // base is borrowed and must outlive this Env and every file it opened.
  // Paths starting with cached go through the cache (capacity descriptors
  // at most; 0 counts as 1).
  FileCacheEnv(Env* base, std::string cached, size_t capacity);
  ~FileCacheEnv() override;

  Status OpenFile(const std::string& path, std::unique_ptr<File>* out) override;
  Status OpenExistingFile(const std::string& path, std::unique_ptr<File>* out) override;
  Status OpenReadOnlyFile(const std::string& path, std::unique_ptr<File>* out) override;

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
  // Drops the least recently used descriptors beyond capacity into
  // *closing (closed by the caller, outside the lock).
  void TrimToCapacity(std::vector<std::shared_ptr<File>>* closing) REQUIRES(mu_);
  // Opens path with the base Env's `open`; a file under the cached prefix
  // comes back wrapped (see Wrap), any other as the base Env opened it.
  using OpenFn = Status (Env::*)(const std::string&, std::unique_ptr<File>*);
  Status OpenThrough(OpenFn open, const std::string& path, bool read_only,
                     std::unique_ptr<File>* out);

  const std::string cached_;
  const size_t capacity_;
  Mutex mu_;
  std::list<Entry*> lru_ GUARDED_BY(mu_);  // entries with an open file, most recent first
  uint64_t closes_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::storage
