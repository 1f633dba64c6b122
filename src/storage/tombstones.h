// Tombstones: what deletions removed from sealed pages, until compaction
// drops it for good; and the series that deletions emptied (hidden from
// lookups until a point is written to them again).
//
// Why: a page file or cold file is never rewritten in place, so a deleted
// range of a series is recorded as a tombstone that every reader applies.
// Points in memory (head, out-of-order and pending pages) are removed at
// once instead. A tombstone covers only the pages that were on disk when
// the delete ran: the partition's cold file that existed then (named by the
// id of the page file it replaced) and the pages of its page file (named
// by id) below the file's end then. Points written after the delete land
// in memory first and then at or past that end, so they are never covered;
// a compaction writes a new cold file without the deleted points, after
// which the tombstone covers nothing and is forgotten.
//
// Persistence (no file of its own; both are record log records, CRC'd):
//   WAL record type 5, a delete (written before anything is removed; the
//   commit point: replay repeats it against what was replayed before it):
//     varint64 zigzag(start), varint64 zigzag(end), u8 flags (bit 0: hide
//     series left without points), varint32 n, n times varint32 series id
//   Checkpoint record type 6, the engine's deletion state, version 1:
//     u8 version (1), varint32 n tombstones, n times:
//       varint32 series, varint64 zigzag(start), varint64 zigzag(end),
//       varint64 zigzag(partition start), varint32 page file id,
//       varint64 page file end, u8 has_cold, varint32 cold id
//     varint32 m hidden series, m times varint32 series id
// Tombstones in a checkpoint were made before it, so their page file ends
// are at or below the checkpoint's marks (recovery cuts page files back to
// those marks only).
//
// Thread-safety: TombstoneSet's methods are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/mutex.h"
#include "sundial/common/types.h"

namespace sundial::storage {

constexpr uint8_t kWalDeleteRecord = 5;
constexpr uint8_t kWalDeleteStateRecord = 6;  // checkpoints only

// A deletion as the WAL holds it.
struct DeleteOp {
  Timestamp start = 0;
  Timestamp end = 0;  // inclusive
  bool hide_empty = false;
  std::vector<SeriesId> series;
};

// The deleted range [start, end] of a series in the sealed pages of one
// partition, as they were when the delete ran.
struct Tombstone {
  SeriesId series = 0;
  Timestamp start = 0;
  Timestamp end = 0;  // inclusive
  Timestamp part_start = 0;
  uint32_t page_file_id = 0;  // 0: the partition had no page file
  uint64_t page_end = 0;      // pages below this offset are covered
  bool has_cold = false;
  uint32_t cold_id = 0;  // the cold file's replaced page file id
};

// Encodes op as a payload (no record header) into *out (cleared first).
void EncodeDeleteOp(const DeleteOp& op, std::string* out);
// False if the payload is malformed.
bool DecodeDeleteOp(std::string_view in, DeleteOp* op);
void EncodeDeleteState(const std::vector<Tombstone>& tombstones,
                       const std::vector<SeriesId>& hidden, std::string* out);
// False if the payload is malformed or of an unknown version.
bool DecodeDeleteState(std::string_view in, std::vector<Tombstone>* tombstones,
                       std::vector<SeriesId>* hidden);

// Which sealed pages of one partition the tombstones of one series cover.
struct PartitionFiles {
  Timestamp part_start = 0;
  uint32_t page_file_id = 0;
  bool has_cold = false;
  uint32_t cold_id = 0;
};

class TombstoneSet {
 public:
  TombstoneSet() = default;
  TombstoneSet(const TombstoneSet&) = delete;
  TombstoneSet& operator=(const TombstoneSet&) = delete;

  // Cheap: whether any tombstone exists (readers skip the rest if not).
  bool empty() const { return count_.load(std::memory_order_acquire) == 0; }
  void Add(const Tombstone& t) EXCLUDES(mu_);
  // Replaces everything (recovery from a checkpoint's state record).
  void Reset(std::vector<Tombstone> tombstones, const std::vector<SeriesId>& hidden)
      EXCLUDES(mu_);
  // The ranges deleted from a page of series in a partition whose files
  // are f: a cold page (cold) or a page-file page at offset.
  std::vector<std::pair<Timestamp, Timestamp>> RangesFor(SeriesId series,
                                                         const PartitionFiles& f, bool cold,
                                                         uint64_t offset) const EXCLUDES(mu_);
  // Whether any tombstone is in the partition starting at part_start.
  bool HasPartition(Timestamp part_start) const EXCLUDES(mu_);
  // Whether series has a tombstone in the partition starting at part_start.
  bool Covers(SeriesId series, Timestamp part_start) const EXCLUDES(mu_);
  // Drops the tombstones for which dead(t) is true (they cover nothing).
  template <typename F>
  void RemoveIf(F&& dead) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    std::vector<Tombstone> kept;
    for (const Tombstone& t : list_) {
      if (!dead(t)) kept.push_back(t);
    }
    list_.swap(kept);
    count_.store(list_.size(), std::memory_order_release);
  }
  std::vector<Tombstone> All() const EXCLUDES(mu_);
  // Starts of the partitions that have tombstones, ascending, each once.
  std::vector<Timestamp> Partitions() const EXCLUDES(mu_);

  // Hidden series: emptied by a delete, not listed by lookups.
  bool any_hidden() const { return hidden_count_.load(std::memory_order_acquire) != 0; }
  bool IsHidden(SeriesId id) const EXCLUDES(mu_);
  void Hide(SeriesId id) EXCLUDES(mu_);
  // Shows id again (a point was written to it). Cheap if nothing is hidden.
  void Unhide(SeriesId id) EXCLUDES(mu_);
  std::vector<SeriesId> Hidden() const EXCLUDES(mu_);
  // Removes hidden ids from ids (ascending), keeping the order.
  void FilterHidden(std::vector<SeriesId>* ids) const EXCLUDES(mu_);

 private:
  mutable Mutex mu_;
  std::vector<Tombstone> list_ GUARDED_BY(mu_);
  std::vector<SeriesId> hidden_ GUARDED_BY(mu_);  // ascending
  std::atomic<size_t> count_{0};
  std::atomic<size_t> hidden_count_{0};
};

}  // namespace sundial::storage
