// Small POSIX file helpers for the rollup module: whole writes, positional
// reads, crash-safe replacement of a file (tmp, fsync, rename, fsync dir).
//
// Thread-safety: pure functions over file descriptors and paths.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::rollup {

// write() until done; IOError with the path on failure.
Status WriteAll(int fd, std::string_view data, const std::string& path);
// pread() exactly n bytes at offset into *out; Corruption if the file is
// shorter.
Status PReadExact(int fd, uint64_t offset, size_t n, const std::string& path, std::string* out);
// The whole file. NotFound if it does not exist.
Status ReadWholeFile(const std::string& path, std::string* out);
// Writes data to path + ".tmp", fsyncs, renames over path, fsyncs the
// directory.
Status ReplaceFile(const std::string& path, std::string_view data);
// Renames tmp over path and fsyncs the directory of path.
Status RenameDurable(const std::string& tmp, const std::string& path);
Status CreateDirIfMissing(const std::string& path);
Status RemoveFileIfExists(const std::string& path);
// Names in dir (without "." and ".."), with their sizes.
Status ListDir(const std::string& dir, std::vector<std::pair<std::string, uint64_t>>* out);

}  // namespace sundial::rollup
