// The per-target position file (format in sundial/relay/relay.h). Its
// bytes come from disk, so DecodePosition is fuzzed
// (test/relay/relay_position_fuzz.cc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sundial/common/env.h"
#include "sundial/common/status.h"
#include "sundial/storage/wal_reader.h"

namespace sundial::relay {

constexpr size_t kPositionFileSize = 44;

struct PositionRecord {
  storage::WalPosition position;
  uint64_t points_sent = 0;
  uint64_t points_dropped = 0;
};

std::string EncodePosition(const PositionRecord& r);
// False if `in` is not exactly one intact record.
bool DecodePosition(std::string_view in, PositionRecord* out);

// *found is false if there is no file. Corruption if it is damaged.
Status ReadPositionFile(Env* env, const std::string& path, PositionRecord* out, bool* found);
// Replaces the file (write to path.tmp, rename).
Status WritePositionFile(Env* env, const std::string& path, const PositionRecord& r);

}  // namespace sundial::relay
