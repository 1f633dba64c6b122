#include "storage/read_ahead.h"

#include <algorithm>

namespace sundial::storage {

void ReadAhead::Add(const PageFile* file, uint32_t file_id,
                    std::vector<std::pair<uint64_t, std::string>> stretches) {
  if (stretches.empty()) return;
  files_.push_back(FileBytes{file, file_id, std::move(stretches)});
}

const char* ReadAhead::Find(const PageFile* file, uint32_t file_id, uint64_t offset,
                            uint32_t len) const {
  for (const FileBytes& f : files_) {
    if (f.file != file || f.file_id != file_id) continue;
    // The last stretch starting at or before offset.
    auto it = std::upper_bound(
        f.stretches.begin(), f.stretches.end(), offset,
        [](uint64_t o, const std::pair<uint64_t, std::string>& s) { return o < s.first; });
    if (it == f.stretches.begin()) return nullptr;
    --it;
    const uint64_t at = offset - it->first;
    if (at + len > it->second.size()) return nullptr;
    return it->second.data() + at;
  }
  return nullptr;
}

}  // namespace sundial::storage
