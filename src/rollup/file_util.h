// Small file helpers for the rollup module over the shared Env: exact reads,
// crash-safe replacement of a file (tmp, fsync, rename, fsync dir).
//
// Thread-safety: pure functions over an Env (which is thread-safe) and paths.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/status.h"

namespace sundial::rollup {

// Reads exactly n bytes at offset into *out; Corruption if the file is
// shorter.
Status PReadExact(File* file, uint64_t offset, size_t n, std::string* out);
// Writes data to path + ".tmp", fsyncs, renames over path, fsyncs the
// directory. On error path is unchanged (the tmp file may be left behind).
Status ReplaceFile(Env* env, const std::string& path, std::string_view data);
// Renames tmp over path and fsyncs the directory of path.
Status RenameDurable(Env* env, const std::string& tmp, const std::string& path);
Status RemoveFileIfExists(Env* env, const std::string& path);
// Names in dir (without "." and ".."), with their sizes.
Status ListDir(Env* env, const std::string& dir,
               std::vector<std::pair<std::string, uint64_t>>* out);

}  // namespace sundial::rollup
