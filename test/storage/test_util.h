// Helpers shared by the storage tests: temp dirs, seeds, reading a series.
#pragma once

#include <stdlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "sundial/common/sample_iterator.h"
#include "sundial/storage/storage.h"

namespace sundial::storage::testing {

// A fresh directory under $TMPDIR (or /tmp), removed on destruction.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr ? base : "/tmp") + "/sundial-storage-XXXXXX";
    if (mkdtemp(&tmpl[0]) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The seed for a randomised test: $SUNDIAL_SEED or `fallback`; printed.
inline uint64_t TestSeed(uint64_t fallback) {
  const char* env = std::getenv("SUNDIAL_SEED");
  const uint64_t seed = env != nullptr ? std::strtoull(env, nullptr, 10) : fallback;
  std::printf("SUNDIAL_SEED=%llu\n", static_cast<unsigned long long>(seed));
  return seed;
}

// Applies 1..8 random edits to *s (overwrite a byte, truncate, insert a
// byte), for the unguided fuzz smoke runs.
inline void Mutate(std::string* s, std::mt19937_64* rng) {
  const int edits = 1 + static_cast<int>((*rng)() % 8);
  for (int e = 0; e < edits && !s->empty(); ++e) {
    switch ((*rng)() % 3) {
      case 0: (*s)[(*rng)() % s->size()] = static_cast<char>((*rng)()); break;
      case 1: s->resize((*rng)() % s->size()); break;
      default: s->insert((*rng)() % s->size(), 1, static_cast<char>((*rng)()));
    }
  }
}

// Every point of series id in [start, end].
inline std::vector<Sample> ReadAll(Storage* db, SeriesId id, Timestamp start = kMinTimestamp,
                                   Timestamp end = kMaxTimestamp) {
  std::vector<Sample> out;
  auto it = db->NewIterator(id, start, end);
  while (it->Next()) out.push_back(Sample{it->t(), it->v()});
  return out;
}

inline StorageOptions SmallOptions(const std::string& dir) {
  StorageOptions o;
  o.data_dir = dir;
  o.page_size = 256;
  o.wal_sync = WalSyncMode::kNone;
  o.mmap_window_bytes = 64 * 1024;
  return o;
}

}  // namespace sundial::storage::testing
