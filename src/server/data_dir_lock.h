// DataDirLock: makes sure one server at a time uses a data directory.
//
// Creates the directory (and parents) if missing and takes an exclusive
// flock on <dir>/sundiald.lock, which holds the owner's pid. The lock goes
// away with the process, even after kill -9.
#pragma once

#include <string>

#include "sundial/common/status.h"

namespace sundial::server {

class DataDirLock {
 public:
  DataDirLock() = default;
  ~DataDirLock();
  DataDirLock(const DataDirLock&) = delete;
  DataDirLock& operator=(const DataDirLock&) = delete;

  // Busy (with the holder's pid when known) if another process holds it;
  // IOError if the directory cannot be created or the file opened.
  Status Acquire(const std::string& dir);

 private:
  int fd_ = -1;
};

}  // namespace sundial::server
