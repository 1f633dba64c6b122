// PartitionSet: every time partition of the data dir, loaded on demand.
//
// Why: a year of day partitions must not all be open, mapped and indexed in
// memory. The set knows every partition's range from its directory name and
// opens one (reading its index) when a write or read first needs it;
// partitions not used for a while are closed again (EvictIdle).
//
// A point belongs to the partition whose range holds it; when none does, a
// new range [floor(t / duration) * duration, + duration) is created (cut
// short where it would overlap an existing range, e.g. after the duration
// setting changed).
//
// Checkpoint marks (the payload of a WAL marks record, wal.h), version 1:
//   varint32 n, then n times (every partition the set knows, open or not):
//     varint64 zigzag(start), u8 has_mark, [varint64 page file end]
// A partition with a mark has its page file cut back to it on recovery; a
// partition without one was closed (synced, untouched) when the mark was
// taken and is left alone; a partition missing from the list was created
// after it and is cut to nothing.
//
// Thread-safety: all methods are thread-safe. Partitions are handed out as
// shared_ptr so that an iterator or a writer can keep one open while the set
// decides to close it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/env.h"
#include "storage/partition.h"

namespace sundial::storage {

class PartitionSet {
 public:
  PartitionSet(Env* env, std::string root, Timestamp duration, uint64_t window_bytes);
  PartitionSet(const PartitionSet&) = delete;
  PartitionSet& operator=(const PartitionSet&) = delete;

  // Lists the partitions under root (creating root if missing), cuts page
  // files back to the checkpoint marks (null: none), rebuilds missing
  // indexes and opens the newest partition.
  Status Open(std::vector<std::string>* warnings, const std::string* marks = nullptr);
  // Encodes the marks of every partition (format above) into *payload.
  // REQUIRES: no page is being added meanwhile (the maintenance thread
  // calls it, and it is the only writer of pages).
  void Marks(std::string* payload);
  // The partition holding t, created (in memory; files come with the first
  // page) if none does.
  Status Locate(Timestamp t, std::shared_ptr<Partition>* out);
  // Existing partitions overlapping [start, end], ascending, opened.
  std::vector<std::shared_ptr<Partition>> Overlapping(Timestamp start, Timestamp end);
  // Start of the newest partition (kMinTimestamp if none).
  Timestamp NewestStart();
  // Every partition's [start, end), ascending, without opening any.
  std::vector<std::pair<Timestamp, Timestamp>> Ranges();
  // fsyncs every open partition written since its last sync.
  Status SyncAll();
  // Closes partitions not used since before `before_ms` (Env clock),
  // except ones that end after keep_after.
  void EvictIdle(int64_t before_ms, Timestamp keep_after);
  // Removes partitions that end at or before `cutoff`. Returns the count.
  size_t DropBefore(Timestamp cutoff);
  // Warnings from partitions opened since the last call.
  std::vector<std::string> TakeWarnings();
  size_t MemoryUsage();
  uint64_t DiskBytes();
  uint64_t PageCount();
  // Partitions open in memory now.
  size_t OpenCount();

 private:
  struct Slot {
    Timestamp end = 0;
    std::shared_ptr<Partition> part;  // null while closed
    int64_t last_use_ms = 0;
    bool cut = false;  // its page file was cut back to a mark at Open
  };
  // Applies marks to the listed slots. False if marks do not decode.
  bool ApplyMarks(const std::string& marks, std::vector<std::string>* warnings);
  std::string DirOf(Timestamp start, Timestamp end) const;
  // Opens the slot's partition if closed. REQUIRES: mu_ held.
  Status Load(Timestamp start, Slot* slot);

  Env* const env_;
  const std::string root_;
  const Timestamp duration_;
  const uint64_t window_bytes_;
  std::mutex mu_;
  std::map<Timestamp, Slot> slots_;    // GUARDED_BY(mu_); by start
  std::vector<std::string> warnings_;  // GUARDED_BY(mu_)
};

}  // namespace sundial::storage
