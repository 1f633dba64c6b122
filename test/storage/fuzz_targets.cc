#include "storage/fuzz_targets.h"

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "storage/cold_file.h"
#include "storage/record_log.h"
#include "storage/series_dict.h"
#include "storage/storage_impl.h"
#include "sundial/compress/page_iterator.h"
#include "storage/wal.h"
#include "sundial/storage/meta_store.h"
#include "storage/wal_reader_impl.h"

namespace sundial::storage {
namespace {

// A File over a string, for parsing without touching the disk.
class MemFile final : public File {
 public:
  explicit MemFile(std::string data) : data_(std::move(data)) {}
  MemFile(std::string data, std::string path) : data_(std::move(data)), path_(std::move(path)) {}
  Status Write(uint64_t, const char*, size_t) override { return Status::IOError("read-only"); }
  Status Read(uint64_t offset, size_t n, char* dst, size_t* got) override {
    *got = 0;
    if (offset >= data_.size()) return Status::OK();
    *got = std::min<size_t>(n, data_.size() - static_cast<size_t>(offset));
    data_.copy(dst, *got, static_cast<size_t>(offset));
    return Status::OK();
  }
  Status Sync() override { return Status::OK(); }
  Status Truncate(uint64_t) override { return Status::IOError("read-only"); }
  Status Size(uint64_t* s) override {
    *s = data_.size();
    return Status::OK();
  }
  Status Map(uint64_t, size_t, std::unique_ptr<MappedRegion>*) override {
    return Status::IOError("no maps");
  }
  const std::string& path() const override { return path_; }

 private:
  std::string data_;
  std::string path_ = "mem";

};

bool WriteFile(const std::string& path, const std::string& data) {
  auto env = NewPosixEnv();
  std::unique_ptr<File> f;
  return env->OpenFile(path, &f).ok() && f->Write(0, data.data(), data.size()).ok();
}

std::string_view Take(const uint8_t** data, size_t* size) {
  if (*size < 2) {
    std::string_view all(reinterpret_cast<const char*>(*data), *size);
    *data += *size;
    *size = 0;
    return all;
  }
  size_t n = static_cast<size_t>((*data)[0]) | (static_cast<size_t>((*data)[1]) << 8);
  *data += 2;
  *size -= 2;
  if (n > *size) n = *size;
  std::string_view part(reinterpret_cast<const char*>(*data), n);
  *data += n;
  *size -= n;
  return part;
}

}  // namespace

void FuzzWalRecords(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  for (uint8_t type : {kWalPointsRecord, kWalPointsRecordV2, kWalPointsRecordV1}) {
    (void)DecodeWalPoints(type, in, [](const SeriesPoint&) {});
  }
  (void)DecodeCheckpointPage(in, [](const SeriesPoint&) {});
  MemFile file(LogFileHeader("SUNDWAL1") + std::string(in));
  LogReader reader(&file, kLogFileHeaderSize + size, "SUNDWAL1");
  if (!reader.Open().ok()) std::abort();  // the header is ours: must open
  uint8_t type;
  std::string_view payload;
  while (reader.Next(&type, &payload)) {
    (void)DecodeWalPoints(type, payload, [](const SeriesPoint&) {});
  }
}

void FuzzDeleteRecords(const uint8_t* data, size_t size) {
  const std::string_view in(reinterpret_cast<const char*>(data), size);
  DeleteOp op;
  if (DecodeDeleteOp(in, &op)) {
    std::string again;
    EncodeDeleteOp(op, &again);
    DeleteOp op2;
    if (!DecodeDeleteOp(again, &op2) || op2.series != op.series || op2.start != op.start ||
        op2.end != op.end || op2.hide_empty != op.hide_empty) {
      std::abort();
    }
  }
  std::vector<Tombstone> list, list2;
  std::vector<SeriesId> hidden, hidden2;
  if (DecodeDeleteState(in, &list, &hidden)) {
    std::string again;
    EncodeDeleteState(list, hidden, &again);
    if (!DecodeDeleteState(again, &list2, &hidden2) || list2.size() != list.size() ||
        hidden2 != hidden) {
      std::abort();
    }
    TombstoneSet set;
    set.Reset(list, hidden);
    PartitionFiles f;
    for (const Tombstone& t : list) {
      f.part_start = t.part_start;
      f.page_file_id = t.page_file_id;
      (void)set.RangesFor(t.series, f, false, 0);
    }
  }
  (void)SnapshotNameTime(std::string(in));
  (void)ValidSnapshotName(std::string(in));
}

void FuzzWalReader(const uint8_t* data, size_t size) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/sundial-fuzz-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return;
  {
    std::string batch;
    const SeriesPoint p{1, 1000, Value::Int(7)};
    EncodeWalBatch(&p, 1, &batch);
    WriteFile(dir + "/" + WalSegmentName(1),
              LogFileHeader("SUNDWAL1") + std::string(reinterpret_cast<const char*>(data), size));
    WriteFile(dir + "/" + WalSegmentName(2), LogFileHeader("SUNDWAL1") + batch);
    std::unique_ptr<Env> env = NewPosixEnv();
    Wal wal(env.get(), dir, 1 << 20);
    std::vector<std::string> warnings;
    uint64_t corrupt = 0;
    Status open_error;
    if (wal.Recover([](uint8_t, std::string_view) {}, &warnings, &corrupt, &open_error).ok()) {
      WalReaderImpl reader(&wal, WalPosition{1, 0});
      std::vector<SeriesPoint> points;
      WalPosition last = reader.position();
      bool saw_last_batch = false;
      for (int i = 0; i < 100000 && reader.Next(&points); ++i) {
        if (reader.position() < last) std::abort();  // positions only grow
        last = reader.position();
        saw_last_batch = saw_last_batch || last.segment == 2;
        points.clear();
      }
      if (!saw_last_batch) std::abort();  // damage in segment 1 never hides segment 2
      (void)reader.TakeWarnings();
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

void FuzzDataDir(const uint8_t* data, size_t size) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/sundial-fuzz-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return;
  const std::string part = dir + "/part/0_86400000";
  std::filesystem::create_directories(part);
  std::filesystem::create_directories(dir + "/wal");
  const std::string_view dict = Take(&data, &size);
  const std::string_view wal = Take(&data, &size);
  const std::string_view pages = Take(&data, &size);
  const std::string_view index(reinterpret_cast<const char*>(data), size);
  WriteFile(dir + "/series.log", LogFileHeader("SUNDSER1") + std::string(dict));
  WriteFile(dir + "/wal/00000000000000000001.wal", LogFileHeader("SUNDWAL1") + std::string(wal));
  WriteFile(part + "/pages", LogFileHeader("SUNDPAG1") + std::string(pages));
  WriteFile(part + "/index", LogFileHeader("SUNDIDX1") + std::string(index));
  {
    StorageOptions o;
    o.data_dir = dir;
    o.wal_sync = WalSyncMode::kNone;
    o.mmap_window_bytes = 64 * 1024;
    std::unique_ptr<StorageImpl> db;
    if (StorageImpl::Open(o, NewPosixEnv(), &db).ok()) {
      const uint64_t n = db->stats().series_count;
      for (SeriesId id = 0; id < n + 2; ++id) {
        auto it = db->NewIterator(id, kMinTimestamp, kMaxTimestamp);
        Timestamp prev = kMinTimestamp;
        bool first = true;
        while (it->Next()) {
          if (!first && it->t() <= prev) std::abort();  // must be strictly increasing
          prev = it->t();
          first = false;
        }
        Sample s;
        (void)db->LastPoint(id, &s);
      }
      (void)db->recovery_warnings();
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

void FuzzColdFile(const uint8_t* data, size_t size) {
  constexpr Timestamp kDay = 86400000;
  std::unique_ptr<ColdFile> cold;
  auto file = std::make_unique<MemFile>(std::string(reinterpret_cast<const char*>(data), size),
                                        "cold");
  if (!ColdFile::FromFile(std::move(file), 0, kDay, &cold, /*verify_checksums=*/false).ok()) {
    return;
  }
  std::vector<ColdPage> pages;
  std::vector<Timestamp> ts;
  std::vector<Value> vs;
  std::string page;
  for (SeriesId id : cold->SeriesIds()) {
    pages.clear();
    if (!cold->PagesOf(id, 0, kDay - 1, &pages).ok()) continue;
    for (const ColdPage& p : pages) {
      if (!cold->ReadPage(id, p, &page).ok()) std::abort();  // listed pages must read
      bool columnar = false;
      if (!cold->ReadPoints(id, p, &ts, &vs, &columnar).ok()) std::abort();
      // A page of a columnar block is p.len points, else p.len bytes.
      if ((columnar ? ts.size() : page.size()) != p.len || ts.size() != vs.size()) std::abort();
      compress::PageIterator it(page);
      size_t n = 0;
      while (it.Next()) {
        if (columnar && (n >= ts.size() || it.t() != ts[n] || !it.v().BitEquals(vs[n]))) {
          std::abort();  // the page holds exactly the points
        }
        ++n;
      }
      if (columnar && (!it.status().ok() || n != ts.size())) std::abort();
    }
  }
}

void FuzzSeriesLog(const uint8_t* data, size_t size) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/sundial-fuzz-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return;
  const std::string path = dir + "/series.log";
  WriteFile(path, std::string(reinterpret_cast<const char*>(data), size));
  auto env = NewPosixEnv();
  for (int round = 0; round < 2; ++round) {
    SeriesDict d(env.get(), path, nullptr);
    std::vector<std::string> warnings;
    if (!d.Open(&warnings).ok()) break;
    // The same bytes as new-series records from the WAL (after the file
    // header, where a log's records would start).
    const size_t skip = std::min(size, kLogFileHeaderSize);
    (void)d.ReplayNewRecords(
        std::string_view(reinterpret_cast<const char*>(data) + skip, size - skip), &warnings);
    for (SeriesId id = 0; id < d.id_limit(); ++id) {
      SeriesKey key;
      if (!d.GetSeriesKey(id, &key).ok()) continue;
      std::vector<TagRef> tags;
      for (const auto& kv : key.tags) tags.push_back(TagRef{kv.first, kv.second});
      SeriesId again = kInvalidSeriesId;
      bool created = false;
      (void)d.Resolve(key.metric, tags.data(), tags.size(), &again, &created);
    }
    TagRef tag{"host", "fuzz"};
    SeriesId id = 0;
    bool created = false;
    (void)d.Resolve("fuzz.metric", &tag, 1, &id, &created);
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

void FuzzMetaLog(const uint8_t* data, size_t size) {
  const char* base = std::getenv("TMPDIR");
  std::string dir = std::string(base != nullptr ? base : "/tmp") + "/sundial-fuzz-XXXXXX";
  if (mkdtemp(&dir[0]) == nullptr) return;
  WriteFile(dir + "/" + std::string(MetaStore::kFileName),
            std::string(reinterpret_cast<const char*>(data), size));
  auto env = NewPosixEnv();
  std::vector<std::pair<std::string, std::string>> first;
  {
    std::unique_ptr<MetaStore> m;
    std::vector<std::string> warnings;
    if (MetaStore::Open(env.get(), dir, &m, &warnings).ok()) {
      for (const auto& kv : m->Range("", "")) {
        std::string v;
        if (!m->Get(kv.first, &v) || v != kv.second) std::abort();
      }
      (void)m->Put("fuzz", "value");
      (void)m->Apply({{"a", "1", false}, {"fuzz", "", true}, {"b", "2", false}});
      first = m->Range("", "");
    }
  }
  std::unique_ptr<MetaStore> again;
  std::vector<std::string> warnings;
  if (!first.empty() && MetaStore::Open(env.get(), dir, &again, &warnings).ok() &&
      again->Range("", "") != first) {
    std::abort();  // what was acknowledged must read back the same
  }
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace sundial::storage
