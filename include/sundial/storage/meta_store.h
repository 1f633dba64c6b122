// MetaStore: a small durable key-value map for metadata that is written
// rarely and read often: annotations, UID meta and TS meta (the OpenTSDB
// /api/annotation and /api/uid/{uidmeta,tsmeta} objects).
//
// Why a store of its own and not the data WAL: metadata is not points, is
// changed by a user a few times a day, and must never be dropped with a
// partition. A separate append-only log keeps the engine untouched and lets
// every change be fsynced before it is acknowledged.
//
// On-disk format: file "meta.log" in the data dir, a record log (the framing
// of src/storage/record_log.h: 16-byte header, CRC-32C'd records) with magic
// "SUNDMET1", version 1. Record types:
//   1 put:    varint32 key length, key bytes, value bytes (the rest)
//   2 delete: key bytes (the whole payload)
// Later records win. Keys and values are opaque bytes to this class.
// Damaged records are skipped (their CRC fails) and reported; a torn tail is
// cut. The file is rewritten (to "meta.log.tmp", fsync, rename, fsync dir)
// on Open when it holds more dead records than live ones or was damaged
// (if that fails, e.g. on a full disk, Open warns and appends to the old
// file), and at run time once dead records outnumber live ones and
// kCompactMinDead.
//
// Durability: Apply() returns after its records are written and fsynced; a
// batch is written in one write call and replayed all-or-nothing per record
// (each record has its own CRC; a crash can keep a prefix of a batch).
//
// Memory: the live map is held whole, so its size is bounded: a change
// that would take the live bytes (live_bytes(): keys plus values plus
// kEntryBytes per entry) above max_bytes is refused. Changes that shrink
// it always pass, so a store over its bound (max_bytes lowered, or a log
// written by a store without one) can be cleaned up.
//
// Snapshots: as a SnapshotSource it hands Storage::Snapshot() its live map
// encoded as a fresh meta.log (what Rewrite() writes), so a snapshot holds
// every change applied before the capture and no dead records.
//
// Thread-safety: every method is thread-safe (one mutex; reads copy out).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/mutex.h"
#include "sundial/common/status.h"
#include "sundial/storage/snapshot_source.h"

namespace sundial::storage {

class MetaStore final : public SnapshotSource {
 public:
  static constexpr std::string_view kFileName = "meta.log";
  static constexpr size_t kCompactMinDead = 1024;
  static constexpr size_t kMaxKeyBytes = 4096;
  static constexpr size_t kMaxValueBytes = 1u << 20;
  // What one live entry costs in memory besides its key and value bytes
  // (a map node and two strings on a 64-bit machine), for live_bytes().
  static constexpr uint64_t kEntryBytes = 96;

  // One change of a batch: erase == false puts key=value, true deletes key.
  struct Op {
    std::string key;
    std::string value;
    bool erase = false;
  };

  // Opens (creating if needed) dir/meta.log through env (borrowed; must
  // outlive the store). Warnings about skipped damage go to *warnings.
  // max_bytes bounds live_bytes() (0: no bound); a log that holds more is
  // still loaded whole, with a warning.
  static Status Open(Env* env, const std::string& dir, std::unique_ptr<MetaStore>* out,
                     std::vector<std::string>* warnings, uint64_t max_bytes = 0);

  MetaStore(const MetaStore&) = delete;
  MetaStore& operator=(const MetaStore&) = delete;

  // Applies ops in order and makes them durable. InvalidArgument if a key is
  // empty or longer than kMaxKeyBytes or a value longer than kMaxValueBytes
  // (then nothing is applied); IOError if the write or fsync failed (then
  // nothing is applied in memory and the file is cut back);
  // ResourceExhausted, applying nothing, if the ops would take
  // live_bytes() above max_bytes and above what it is now.
  Status Apply(const std::vector<Op>& ops);
  Status Put(std::string key, std::string value);
  Status Delete(std::string key);

  // The value of key; false if absent.
  bool Get(std::string_view key, std::string* value) const;
  // Copies of all (key, value) with begin <= key < end, ascending. An empty
  // end means no upper bound.
  std::vector<std::pair<std::string, std::string>> Range(std::string_view begin,
                                                         std::string_view end) const;
  // True if some key k has begin <= k < end (end non-empty).
  bool Any(std::string_view begin, std::string_view end) const;
  // Copies of all pairs whose key starts with prefix, ascending.
  std::vector<std::pair<std::string, std::string>> Prefix(std::string_view prefix) const;

  size_t size() const;
  // Memory the live map accounts for: keys, values and kEntryBytes each.
  uint64_t live_bytes() const;
  uint64_t max_bytes() const { return max_bytes_; }
  // Records in the file that a later record overrode (for tests and stats).
  size_t dead_records() const;
  // Times the file was rewritten since Open (for tests).
  uint64_t TEST_rewrites() const;

  // SnapshotSource: kFileName, and the live map as a complete meta.log
  // (header and one put record per key). Never fails.
  std::string SnapshotFileName() const override { return std::string(kFileName); }
  Status CaptureSnapshot(std::string* contents) override;

 private:
  MetaStore(Env* env, std::string dir, uint64_t max_bytes);
  Status Load(std::vector<std::string>* warnings) REQUIRES(mu_);
  // The live map as a complete log file.
  std::string EncodeLiveMap() const REQUIRES(mu_);
  // Writes the live map to a fresh file and renames it over the log.
  Status Rewrite() REQUIRES(mu_);
  // Applies op to map_, counting dead records and keeping live_bytes_.
  void ApplyToMap(const Op& op) REQUIRES(mu_);
  // live_bytes_ once ops are applied.
  uint64_t LiveBytesAfter(const std::vector<Op>& ops) const REQUIRES(mu_);

  Env* const env_;
  const std::string dir_;
  const std::string path_;
  const uint64_t max_bytes_;
  mutable Mutex mu_;
  std::unique_ptr<File> file_ GUARDED_BY(mu_);
  uint64_t file_end_ GUARDED_BY(mu_) = 0;
  std::map<std::string, std::string, std::less<>> map_ GUARDED_BY(mu_);
  size_t dead_ GUARDED_BY(mu_) = 0;
  uint64_t live_bytes_ GUARDED_BY(mu_) = 0;
  uint64_t rewrites_ GUARDED_BY(mu_) = 0;
};

// Decodes one record payload of meta.log into *op. False if it is
// malformed. Exposed for the fuzz target and tests.
bool DecodeMetaRecord(uint8_t type, std::string_view payload, MetaStore::Op* op);

}  // namespace sundial::storage
