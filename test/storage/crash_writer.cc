// A test driver for the kill -9 test (crash_test.cc): opens the engine on a
// directory and appends batches forever, printing "ack <batch>" after each
// Append() returns. The parent kills it at a random moment.
//
// Usage: storage_crash_writer <data dir> <first batch> <series>
// Prints "ready" once the engine is open (recovery done).
// Batch b holds, for every series s, the point (kBase + b * 1000, Value(s, b))
// and, for every third batch, a late point 500 ms earlier (out of order).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "storage/crash_points.h"  // test/storage/crash_points.h
#include "sundial/storage/storage.h"

int main(int argc, char** argv) {
  using namespace sundial;
  using namespace sundial::storage;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <dir> <first batch> <series>\n", argv[0]);
    return 2;
  }
  StorageOptions o = testing::CrashOptions(argv[1]);
  const int64_t first = std::atoll(argv[2]);
  const int series = std::atoi(argv[3]);
  std::unique_ptr<Storage> db;
  Status s = Storage::Open(o, &db);
  if (!s.ok()) {
    std::fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 1;
  }
  std::vector<SeriesId> ids;
  for (int i = 0; i < series; ++i) {
    const std::string host = "h" + std::to_string(i);
    TagRef tag{"host", host};
    SeriesId id;
    s = db->ResolveSeries("crash.metric", &tag, 1, &id);
    if (!s.ok()) {
      std::fprintf(stderr, "resolve: %s\n", s.ToString().c_str());
      return 1;
    }
    ids.push_back(id);
  }
  std::printf("ready\n");
  std::fflush(stdout);
  std::vector<SeriesPoint> batch;
  for (int64_t b = first;; ++b) {
    if (b % 4 == 0) usleep(500);  // a steady rate keeps each run's data small
    batch.clear();
    testing::CrashBatch(ids, b, &batch);
    s = db->Append(batch.data(), batch.size());
    if (!s.ok()) {
      std::fprintf(stderr, "append: %s\n", s.ToString().c_str());
      return 1;
    }
    std::printf("ack %lld\n", static_cast<long long>(b));
    std::fflush(stdout);
  }
}
