// A short, unguided run of the storage fuzz targets inside the unit tests:
// random bytes and mutations of real files. The coverage-guided runs are
// the storage_*_fuzz targets (-DSUNDIAL_FUZZ=ON).
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "storage/fuzz_targets.h"
#include "storage/record_log.h"
#include "storage/test_util.h"
#include "storage/wal.h"
#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

std::string ValidWalRecords(std::mt19937_64* rng) {
  std::string out;
  for (int r = 0; r < 5; ++r) {
    std::vector<SeriesPoint> pts;
    for (int i = 0; i < 20; ++i) {
      pts.push_back({static_cast<SeriesId>((*rng)() % 4), static_cast<Timestamp>((*rng)() % 100000),
                     i % 2 ? Value::Int(static_cast<int64_t>((*rng)())) : Value::Float(i * 0.5)});
    }
    std::string rec;
    EncodeWalBatch(pts.data(), pts.size(), &rec);
    out += rec;
  }
  return out;
}

TEST(StorageFuzzSmoke, WalReader) {
  std::mt19937_64 rng(testing::TestSeed(11));
  for (int i = 0; i < 300; ++i) {
    std::string s = ValidWalRecords(&rng);
    testing::Mutate(&s, &rng);
    FuzzWalReader(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

TEST(StorageFuzzSmoke, WalRecords) {
  std::mt19937_64 rng(testing::TestSeed(7));
  for (int i = 0; i < 3000; ++i) {
    std::string s = ValidWalRecords(&rng);
    testing::Mutate(&s, &rng);
    FuzzWalRecords(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

TEST(StorageFuzzSmoke, DataDir) {
  std::mt19937_64 rng(testing::TestSeed(11));
  // A realistic directory: dictionary records, a WAL, no pages.
  std::string dict;
  std::string name(1, '\0');
  PutVarint32(&name, 1);
  PutLengthPrefixed(&name, "m");
  AppendLogRecord(&dict, 1, name);
  std::string series;  // series 0: metric uid 1, no tags
  PutVarint32(&series, 0);
  PutVarint32(&series, 1);
  PutVarint32(&series, 0);
  AppendLogRecord(&dict, 2, series);
  for (int i = 0; i < 150; ++i) {
    std::string d = dict, w = ValidWalRecords(&rng), pages, index;
    if (i % 2) testing::Mutate(&d, &rng);
    if (i % 3) testing::Mutate(&w, &rng);
    std::string in;
    for (const std::string* part : {&d, &w, &pages}) {
      in.push_back(static_cast<char>(part->size() & 0xff));
      in.push_back(static_cast<char>(part->size() >> 8));
      in += *part;
    }
    in += index;
    if (i % 5 == 4) testing::Mutate(&in, &rng);
    FuzzDataDir(reinterpret_cast<const uint8_t*>(in.data()), in.size());
  }
}

TEST(StorageFuzzSmoke, SeriesLog) {
  std::mt19937_64 rng(testing::TestSeed(13));
  std::string log = LogFileHeader("SUNDSER1");
  // The same records as the WAL carries them (SeriesDict::ReplayNewRecords).
  std::string entries = LogFileHeader("SUNDSER1");
  auto add = [&](uint8_t type, const std::string& payload) {
    AppendLogRecord(&log, type, payload);
    entries.push_back(static_cast<char>(type));
    PutLengthPrefixed(&entries, payload);
  };
  for (uint32_t uid = 1; uid <= 4; ++uid) {
    for (uint8_t kind = 0; kind < 3; ++kind) {
      std::string name(1, static_cast<char>(kind));
      PutVarint32(&name, uid);
      PutLengthPrefixed(&name, "n" + std::to_string(uid));
      add(1, name);
    }
    std::string series;  // series uid-1: metric uid, one tag (uid, uid)
    PutVarint32(&series, uid - 1);
    PutVarint32(&series, uid);
    PutVarint32(&series, 1);
    PutVarint32(&series, uid);
    PutVarint32(&series, uid);
    add(2, series);
  }
  std::string rename(1, '\0');  // metric uid 2 renamed
  PutVarint32(&rename, 2);
  PutLengthPrefixed(&rename, "renamed");
  add(3, rename);
  for (int i = 0; i < 300; ++i) {
    std::string s = i % 2 == 0 ? log : entries;
    testing::Mutate(&s, &rng);
    FuzzSeriesLog(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

TEST(StorageFuzzSmoke, MetaLog) {
  std::mt19937_64 rng(testing::TestSeed(17));
  std::string log = LogFileHeader("SUNDMET1");
  for (int i = 0; i < 8; ++i) {
    std::string put;
    PutLengthPrefixed(&put, "key" + std::to_string(i));
    put += "{\"description\":\"v" + std::to_string(i) + "\"}";
    AppendLogRecord(&log, 1, put);
  }
  AppendLogRecord(&log, 2, "key3");
  for (int i = 0; i < 300; ++i) {
    std::string s = log;
    if (i > 0) testing::Mutate(&s, &rng);
    FuzzMetaLog(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

}  // namespace
}  // namespace sundial::storage
