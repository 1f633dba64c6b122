// SeriesDict: the series dictionary (metric + sorted tags -> dense SeriesId),
// its append-only log, the interned names and the inverted index.
//
// On-disk format: file "series.log" in the data dir, a record log (see
// record_log.h) with magic "SUNDSER1", version 1. Record types:
//   1 name:   u8 kind (NameKind), varint32 uid, varint32 length, bytes
//   2 series: varint32 series id, varint32 metric uid, varint32 tag count,
//             then per tag varint32 tag-key uid, varint32 tag-value uid,
//             tags sorted by tag-key uid
//   3 rename: u8 kind, varint32 uid, varint32 length, bytes: the uid's
//             name from here on (added later in version 1; an older
//             reader skips it with a warning and keeps the old name)
// A series record always follows the name records it refers to. Uids and
// series ids are explicit, so a damaged record loses only itself (and the
// series that refer to a lost name).
//
// In memory: three NameTables, the distinct tag sets (TagsetTable), per
// series id its metric uid and tagset id (8 bytes), an open-addressing hash
// table from (metric uid, tagset id) to its series id, and postings
// (metric uid -> ids, tagset id -> ids, (tagk uid, tagv uid) -> tagset
// ids), all rebuilt on Open. Every id list is ascending.
//
// Durability: a new series' records are written to the log but not
// fsynced. The owner either calls Sync() before the series is used, or
// passes on_new_records, which puts the same records into its own log (the
// engine's WAL, whose fsync then covers them: one fsync per batch, not two)
// and replays them with ReplayNewRecords after a crash; it must then Sync()
// before that copy is dropped. With on_new_records the records reach this
// log in batches, by Sync() at the latest, so a trickle of new series does
// not dirty a block of it between checkpoints.
//
// Thread-safety: all methods are thread-safe. Lookups share a reader lock;
// creating a series takes the writer lock and writes the log.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sundial/common/env.h"
#include "storage/name_table.h"
#include "storage/tagset_table.h"
#include "sundial/common/mutex.h"
#include "sundial/storage/storage.h"

namespace sundial::storage {

class SeriesDict {
 public:
  // on_create runs under the dictionary's writer lock for every series that
  // becomes known (at Open and when created), before its id is handed out.
  // max_series: Resolve creates no series while this many exist (0: no
  // limit); a log holding more is still loaded whole. AssignName stops at
  // max_series names of a kind. on_new_records (may be null) runs under the
  // writer lock when Resolve creates a series, after its records are
  // written to the log and before its id is handed out, with those records
  // encoded as ReplayNewRecords reads them; if it fails, the series is not
  // created.
  SeriesDict(Env* env, std::string path, std::function<void(SeriesId)> on_create,
             uint64_t max_series = 0,
             std::function<Status(const std::string& records)> on_new_records = nullptr);
  SeriesDict(const SeriesDict&) = delete;
  SeriesDict& operator=(const SeriesDict&) = delete;

  // Loads the log (creating it if missing). Damaged records are skipped and
  // described in *warnings.
  Status Open(std::vector<std::string>* warnings);

  // Finds or creates metric{tags}. *created tells which. Creating writes the
  // log (one write; with on_new_records, that and the log later); on a
  // write error nothing changes. ResourceExhausted ("too many series ...")
  // when creating would pass max_series.
  Status Resolve(std::string_view metric, const TagRef* tags, size_t num_tags, SeriesId* id,
                 bool* created);

  // The log's length now (a record boundary): what a snapshot copies. The
  // records not written yet are in the owner's log (on_new_records).
  uint64_t LogSize() const EXCLUDES(mu_) {
    ReaderLock lock(&mu_);
    return file_end_;
  }
  // Writes what waits (unwritten_) and fsyncs the log if anything was
  // written since the last Sync.
  Status Sync();
  // Applies records that on_new_records was given, after a crash: each name
  // or series the log lacks is added and written to the log (not fsynced);
  // those it has are skipped. Returns false if records is malformed (what
  // came before the damage is applied); conflicts with the log are
  // described in *warnings. Call after Open, before any Resolve.
  // Encoding: entries back to back, each u8 record type (as in the log),
  // varint32 payload length, payload.
  bool ReplayNewRecords(std::string_view records, std::vector<std::string>* warnings);

  // Number of ids handed out so far (the largest id + 1).
  SeriesId id_limit() const { return id_limit_.load(std::memory_order_acquire); }
  uint64_t series_count() const { return series_count_.load(std::memory_order_relaxed); }

  std::vector<SeriesId> SeriesOfMetric(std::string_view metric) const;
  std::vector<SeriesId> SeriesWithTag(std::string_view key, std::string_view value) const;
  // Storage::SeriesOfMetricWithTag, under one lock, copying no list.
  std::vector<SeriesId> SeriesOfMetricWithTag(std::string_view metric, std::string_view key,
                                              const std::vector<std::string>& values) const;
  Status GetSeriesKey(SeriesId id, SeriesKey* out) const;
  // Sorts ids by metric (uid order), ascending ids within a metric; ids
  // not known here go last.
  void SortByMetric(std::vector<SeriesId>* ids) const;
  // The metric uid of each of ids (UINT32_MAX for ids not known here), under
  // one lock: (*metrics)[i] is that of ids[i].
  void MetricsOf(const std::vector<SeriesId>& ids, std::vector<uint32_t>* metrics) const;
  // Names borrowed from the tables' arenas, which never free them.
  Status GetSeriesKeyRef(SeriesId id, SeriesKeyRef* out) const;
  Status LookupUid(NameKind kind, std::string_view name, uint32_t* uid) const;
  // Storage::AssignName / NameOfUid.
  Status AssignName(NameKind kind, std::string_view name, uint32_t* uid, bool* created);
  Status NameOfUid(NameKind kind, uint32_t uid, std::string* name) const;
  Status RenameName(NameKind kind, std::string_view from, std::string_view to);
  // Storage::name_epoch.
  const std::atomic<uint64_t>* name_epoch() const { return &name_epoch_; }
  std::vector<std::string> SuggestNames(NameKind kind, std::string_view prefix,
                                        size_t max) const;
  size_t MemoryUsage() const;

 private:
  using UidPair = std::pair<uint32_t, uint32_t>;

  bool Exists(SeriesId id) const REQUIRES_SHARED(mu_);
  // Looks up the uids of metric and tags; false if any name is unknown.
  // pairs gets num_tags entries sorted by tag-key uid.
  bool FindUids(std::string_view metric, const TagRef* tags, size_t num_tags, uint32_t* metric_uid,
                UidPair* pairs) const REQUIRES_SHARED(mu_);
  // The id of the key, or kInvalidSeriesId.
  SeriesId FindKey(uint32_t metric_uid, const UidPair* pairs, size_t n) const
      REQUIRES_SHARED(mu_);
  static uint64_t HashKey(uint32_t metric_uid, uint32_t tagset);
  // Adds a series to the in-memory structures.
  void AddSeries(SeriesId id, uint32_t metric_uid, const UidPair* pairs, size_t n)
      REQUIRES(mu_);
  void InsertIntoTable(SeriesId id, uint64_t hash) REQUIRES(mu_);
  void Rehash() REQUIRES(mu_);
  Status CreateLocked(std::string_view metric, const TagRef* tags, size_t num_tags,
                      SeriesId* id) REQUIRES(mu_);
  // What ApplyRecord did with a record: added it, found it already there
  // (the same name at the same uid, the same series at the same id), or
  // skipped it, with a warning, as damaged or contradicting what is there.
  enum class Applied { kAdded, kKnown, kSkipped };
  Applied ApplyRecord(uint8_t type, std::string_view payload, std::vector<std::string>* warnings)
      REQUIRES(mu_);
  // Writes whole records at file_end_ (no fsync); on failure truncates back
  // (best effort) and leaves file_end_ as it was.
  [[nodiscard]] Status AppendLocked(const std::string& records) REQUIRES(mu_);
  // AppendLocked of one record, then an fsync.
  [[nodiscard]] Status AppendSyncedLocked(uint8_t type, std::string_view payload)
      REQUIRES(mu_);
  NameTable& names(NameKind kind) REQUIRES(mu_) { return names_[static_cast<int>(kind)]; }
  const NameTable& names(NameKind kind) const REQUIRES_SHARED(mu_) {
    return names_[static_cast<int>(kind)];
  }

  Env* const env_;
  const std::string path_;
  const std::function<void(SeriesId)> on_create_;
  const uint64_t max_series_;
  const std::function<Status(const std::string&)> on_new_records_;

  mutable SharedMutex mu_;
  // Set by Open (under mu_), never replaced: Sync() fsyncs it without mu_.
  std::unique_ptr<File> file_;
  uint64_t file_end_ GUARDED_BY(mu_) = 0;
  bool dirty_ GUARDED_BY(mu_) = false;
  // Records the owner's log holds and this one does not yet: new series'
  // (with on_new_records; written once 64 KiB wait) and those replayed
  // after a crash that a write could not put here (replay needs no free
  // space). Written before any other record, since those may refer to
  // their names, and by Sync() at the latest.
  std::string unwritten_ GUARDED_BY(mu_);
  NameTable names_[3] GUARDED_BY(mu_);
  std::atomic<uint64_t> name_epoch_{0};  // renames so far
  TagsetTable tagsets_ GUARDED_BY(mu_);
  // By series id: its metric uid (0: no such series) and tagset id.
  std::vector<uint32_t> series_metric_ GUARDED_BY(mu_);
  std::vector<uint32_t> series_tagset_ GUARDED_BY(mu_);
  std::vector<uint32_t> table_ GUARDED_BY(mu_);  // open addressing: series id + 1, 0 = empty
  size_t table_used_ GUARDED_BY(mu_) = 0;
  std::vector<std::vector<SeriesId>> by_metric_ GUARDED_BY(mu_);  // index: metric uid
  // Postings of tags go through tag sets: a series is listed once, under its
  // tag set, rather than once per tag (4 bytes per series, not 4 per tag).
  std::vector<std::vector<SeriesId>> by_tagset_ GUARDED_BY(mu_);  // index: tagset id
  std::unordered_map<uint64_t, std::vector<uint32_t>> tagsets_with_tag_
      GUARDED_BY(mu_);  // (k << 32 | v) -> tagset ids
  std::atomic<SeriesId> id_limit_{0};
  std::atomic<uint64_t> series_count_{0};
  Mutex sync_mu_;  // one fsync of the log at a time
};

}  // namespace sundial::storage
