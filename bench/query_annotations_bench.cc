// What annotations cost: a durable write (one fsync each), a batch of them
// (one fsync), the range read /api/query makes per result, and reopening.
//
// Usage: query_annotations_bench [--dir=DIR] [--annotations=N] [--series=N]
// DIR must be on the disk to measure (default $TMPDIR or /tmp).
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "sundial/query/annotations.h"
#include "sundial/query/query_engine.h"
#include "sundial/storage/meta_store.h"
#include "sundial/storage/storage.h"

namespace {

using namespace sundial;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  const char* base = std::getenv("TMPDIR");
  std::string parent = base != nullptr ? base : "/tmp";
  int annotations = 2000;
  int series = 200;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--dir=", 6) == 0) parent = argv[i] + 6;
    else if (std::strncmp(argv[i], "--annotations=", 14) == 0) annotations = std::atoi(argv[i] + 14);
    else if (std::strncmp(argv[i], "--series=", 9) == 0) series = std::atoi(argv[i] + 9);
  }
  std::string dir = parent + "/sundial-annbench-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return 1;
  auto env = NewPosixEnv();
  std::unique_ptr<storage::MetaStore> meta;
  std::vector<std::string> warnings;
  if (!storage::MetaStore::Open(env.get(), dir, &meta, &warnings).ok()) return 1;
  query::AnnotationStore store(meta.get());

  // Durable single writes: what POST /api/annotation waits for.
  const int single = std::min(annotations, 200);
  query::AnnotationFields f;
  f.description = true;
  query::Annotation a, stored;
  a.description = "deploy";
  auto t0 = Clock::now();
  for (int i = 0; i < single; ++i) {
    a.tsuid = "";
    a.start_time = 1700000000 + i;
    if (!store.Sync(a, f, true, &stored).ok()) return 1;
  }
  const double single_s = Seconds(t0);
  std::printf("single POST (fsync each): %d in %.3f s, %.2f ms each\n", single, single_s,
              single_s * 1000 / single);

  // One bulk write of the rest, spread over the series.
  std::vector<query::Annotation> notes;
  std::vector<query::AnnotationFields> fields;
  for (int i = 0; i < annotations; ++i) {
    storage::SeriesKey key;
    key.metric_uid = 1;
    key.tag_uids = {{1, static_cast<uint32_t>(1 + i % series)}};
    a.tsuid = query::TsuidOf(key);
    a.start_time = 1700000000 + i * 10;
    notes.push_back(a);
    fields.push_back(f);
  }
  std::vector<query::Annotation> out;
  t0 = Clock::now();
  if (!store.SyncAll(notes, fields, true, &out).ok()) return 1;
  const double bulk_s = Seconds(t0);
  std::printf("bulk POST of %d: %.3f s, %.1f us each\n", annotations, bulk_s,
              bulk_s * 1e6 / annotations);

  // Range reads as /api/query does per result.
  std::string json;
  size_t found = 0;
  t0 = Clock::now();
  const int reads = 20000;
  for (int i = 0; i < reads; ++i) {
    json.clear();
    found += store.AppendRange(notes[static_cast<size_t>(i) % notes.size()].tsuid,
                               1700000000000LL, 1700000000000LL + 3600000, &json);
  }
  const double read_s = Seconds(t0);
  std::printf("range read per series: %.2f us (%zu found over %d reads)\n",
              read_s * 1e6 / reads, found, reads);

  // Reopen: replay and (if needed) compaction of meta.log.
  meta.reset();
  t0 = Clock::now();
  if (!storage::MetaStore::Open(env.get(), dir, &meta, &warnings).ok()) return 1;
  std::printf("reopen with %zu entries: %.3f ms\n", meta->size(), Seconds(t0) * 1000);

  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
