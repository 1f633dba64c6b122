// The deterministic data of the kill -9 test, shared by the writer process
// (crash_writer.cc) and the verifying test (crash_test.cc).
#pragma once

#include <string>
#include <vector>

#include "sundial/storage/storage.h"

namespace sundial::storage::testing {

constexpr Timestamp kCrashBase = 1700000000000;

inline StorageOptions CrashOptions(const std::string& dir) {
  StorageOptions o;
  o.data_dir = dir;
  o.page_size = 128;                       // many sealed pages
  o.partition_duration_ms = 3600 * 1000;   // a partition every 3600 batches
  o.wal_sync = WalSyncMode::kNone;         // a process crash needs no fsync
  o.wal_segment_bytes = 64 * 1024;         // frequent rotations and checkpoints
  o.checkpoint_interval_ms = 50;
  o.mmap_window_bytes = 64 * 1024;
  return o;
}

inline Value CrashValue(size_t series, Timestamp t) {
  return Value::Int(static_cast<int64_t>(series) * 1000003 + (t - kCrashBase) / 500);
}

// Appends batch b for every series to *out.
inline void CrashBatch(const std::vector<SeriesId>& ids, int64_t b, std::vector<SeriesPoint>* out) {
  for (size_t s = 0; s < ids.size(); ++s) {
    const Timestamp t = kCrashBase + b * 1000;
    out->push_back({ids[s], t, CrashValue(s, t)});
    if (b % 3 == 2 && b > 5) {
      const Timestamp late = kCrashBase + (b - 5) * 1000 + 500;
      out->push_back({ids[s], late, CrashValue(s, late)});
    }
  }
}

}  // namespace sundial::storage::testing
