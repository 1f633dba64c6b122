// FileReader: reads a file (plain or gzip; "-" is stdin) on a thread of its
// own, so that decompression overlaps with parsing. Blocks of kBlockBytes
// wait in a queue of at most kQueueBlocks.
//
// Thread-safety: Next() from one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <thread>

#include "sundial/common/mutex.h"
#include "sundial/common/status.h"

namespace sundial::server {

class FileReader {
 public:
  static constexpr size_t kBlockBytes = 256 * 1024;
  static constexpr size_t kQueueBlocks = 4;

  FileReader() = default;
  ~FileReader();
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;

  // Opens path and starts reading. IOError if it cannot be opened.
  Status Open(const std::string& path);
  // The next block of decompressed bytes; false at the end of the file or
  // on a read error (then status() says which).
  bool Next(std::string* block);
  Status status();
  // Bytes of the file read so far (compressed bytes for gzip), and its
  // size (0 when unknown, e.g. stdin).
  uint64_t offset();
  uint64_t size() const { return size_; }

 private:
  void Run();

  void* gz_ = nullptr;  // gzFile
  std::string name_;
  uint64_t size_ = 0;
  std::thread thread_;
  Mutex mu_;
  CondVar cv_{&mu_};
  std::deque<std::string> blocks_ GUARDED_BY(mu_);
  bool eof_ GUARDED_BY(mu_) = false;
  bool stop_ GUARDED_BY(mu_) = false;
  uint64_t offset_ GUARDED_BY(mu_) = 0;
  Status status_ GUARDED_BY(mu_);
};

}  // namespace sundial::server
