// PartitionSet: every time partition of the data dir, loaded on demand.
//
// Why: a year of day partitions must not all be open, mapped and indexed in
// memory. The set knows every partition's range from its directory name and
// opens one (reading its index) when a write or read first needs it;
// partitions not used for a while are closed again (EvictIdle), and at most
// max_open are open at once (least recently used closed first), so that
// file descriptors and mappings stay bounded however many days exist.
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
// Ownership: the set owns every open partition (unique_ptr). It hands them
// out as PartitionRef, a pin: a pinned partition is neither closed by
// EvictIdle nor freed by DropBefore (which retires it; it is freed once no
// pin is left). Pins are taken only under the set's mutex, so a partition
// found unpinned there cannot gain one before it is freed.
//
// Thread-safety: all methods are thread-safe. A PartitionRef must not
// outlive the set.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sundial/common/env.h"
#include "storage/partition.h"
#include "sundial/common/mutex.h"

namespace sundial::storage {

// A pin on an open partition; movable, not copyable. Empty when default
// constructed or moved from.
class PartitionRef {
 public:
  PartitionRef() = default;
  PartitionRef(const PartitionRef&) = delete;
  PartitionRef& operator=(const PartitionRef&) = delete;
  PartitionRef(PartitionRef&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
  PartitionRef& operator=(PartitionRef&& o) noexcept {
    if (this != &o) {
      reset();
      p_ = o.p_;
      o.p_ = nullptr;
    }
    return *this;
  }
  ~PartitionRef() { reset(); }

  void reset() {
    if (p_ != nullptr) p_->Unpin();
    p_ = nullptr;
  }
  Partition* get() const { return p_; }
  Partition* operator->() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  friend class PartitionSet;
  explicit PartitionRef(Partition* p) : p_(p) { p_->Pin(); }
  Partition* p_ = nullptr;
};

class PartitionSet {
 public:
  // At most max_open partitions (each holds up to two file descriptors and
  // its mapped windows) stay open; opening one more closes the least
  // recently used unpinned one (after an fsync, as a closed partition must
  // be durable). Pinned partitions may take the count over the limit.
  PartitionSet(Env* env, std::string root, Timestamp duration, uint64_t window_bytes,
               size_t max_open = 256);
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
  Status Locate(Timestamp t, PartitionRef* out);
  // The range [*start, *end) of the partition holding t, made (in memory,
  // closed) if none does, without opening it: what a late point needs to
  // go to an out-of-order page.
  void RangeOf(Timestamp t, Timestamp* start, Timestamp* end);
  // Existing partitions overlapping [start, end], ascending, opened.
  std::vector<PartitionRef> Overlapping(Timestamp start, Timestamp end);
  // Start of the newest partition (kMinTimestamp if none).
  Timestamp NewestStart();
  // Every partition's [start, end), ascending, without opening any.
  std::vector<std::pair<Timestamp, Timestamp>> Ranges();
  // fsyncs every open partition written since its last sync, and the files
  // of partitions closed since without one (see CloseQuietly).
  Status SyncAll();
  // fsyncs only the partitions closed without a sync (the maintenance
  // thread does it as they go idle, so that a stop has little left to do).
  Status SyncClosed();
  // Closed partitions still waiting for their fsync.
  size_t unsynced_closed();
  // Closes partitions not used since before `before_ms` (Env clock),
  // except ones that end after keep_after.
  void EvictIdle(int64_t before_ms, Timestamp keep_after);
  // Removes partitions that end at or before `cutoff` (their files now,
  // their memory once unpinned). Returns the count.
  size_t DropBefore(Timestamp cutoff);
  // How many DropBefore calls removed something (Storage::removals()).
  uint64_t removals() const { return removals_.load(); }
  // Starts of the partitions that end at or before `cutoff` and still have
  // a page file (compaction's candidates), ascending, without opening any.
  std::vector<Timestamp> WithPageFiles(Timestamp cutoff);
  // Runs fn on the partition starting at `start` (opened if closed) while
  // nobody holds a pin on it and nobody can take one. Busy if it is
  // pinned now; NotFound if there is no such partition.
  Status Exclusive(Timestamp start, const std::function<Status(Partition*)>& fn);
  // Warnings from partitions opened since the last call.
  std::vector<std::string> TakeWarnings();
  size_t MemoryUsage();
  uint64_t DiskBytes();
  uint64_t PageCount();
  // Partitions open in memory now.
  size_t OpenCount();
  // Partitions closed to stay within max_open, so far.
  uint64_t lru_closes() const { return lru_closes_.load(std::memory_order_relaxed); }

 private:
  struct Slot {
    Timestamp end = 0;
    std::unique_ptr<Partition> part;  // null while closed
    int64_t last_use_ms = 0;
    bool cut = false;  // its page file was cut back to a mark at Open
  };
  // Applies marks to the listed slots. False if marks do not decode.
  bool ApplyMarks(const std::string& marks, std::vector<std::string>* warnings) REQUIRES(mu_);
  std::string DirOf(Timestamp start, Timestamp end) const;
  // The slot holding t (made if none does) and its start.
  Slot* SlotOf(Timestamp t, Timestamp* start) REQUIRES(mu_);
  // Opens the slot's partition if closed.
  Status Load(Timestamp start, Slot* slot) REQUIRES(mu_);
  // Closes least recently used unpinned partitions (never keep) until at
  // most max_open_ are open.
  void CloseLeastRecent(Timestamp keep) REQUIRES(mu_);
  // Closes the slot's partition without an fsync: its index entries are
  // written and, if it was written since its last sync, it is noted in
  // unsynced_ for SyncAll/SyncClosed. Why: a backfill that jumps between
  // more days than max_open closes and reopens partitions all the time, and
  // an fsync per close (two per partition) made it, and the stop after it,
  // take minutes. Durability is unchanged: the checkpoint that drops the
  // WAL of those pages, and the clean stop, SyncAll() first.
  // False (still open) if the index could not be written.
  bool CloseQuietly(Timestamp start, Slot* slot) REQUIRES(mu_);

  Env* const env_;
  const std::string root_;
  const Timestamp duration_;
  const uint64_t window_bytes_;
  const size_t max_open_;
  std::atomic<uint64_t> lru_closes_{0};
  Mutex mu_;
  std::map<Timestamp, Slot> slots_ GUARDED_BY(mu_);  // by start
  std::vector<std::string> warnings_ GUARDED_BY(mu_);
  std::map<Timestamp, Timestamp> unsynced_ GUARDED_BY(mu_);  // closed unsynced: start -> end
  // Dropped partitions still pinned by a reader.
  std::vector<std::unique_ptr<Partition>> retired_ GUARDED_BY(mu_);
  std::atomic<uint64_t> removals_{0};
  void FreeRetired() REQUIRES(mu_);
};

}  // namespace sundial::storage
