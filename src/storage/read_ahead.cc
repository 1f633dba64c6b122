#include "storage/read_ahead.h"

namespace sundial::storage {

void ReadAhead::Add(const PageFile* file, uint32_t file_id, JoinedRead read) {
  if (read.stretches.empty()) return;
  files_.push_back(FileBytes{file, file_id, std::move(read)});
}

const char* ReadAhead::Find(const PageFile* file, uint32_t file_id, uint64_t offset,
                            uint32_t len) const {
  for (const FileBytes& f : files_) {
    if (f.file == file && f.file_id == file_id) return f.read.Find(offset, len);
  }
  return nullptr;
}

}  // namespace sundial::storage
