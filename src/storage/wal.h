// Wal: the write-ahead log. Every batch of points is written here (one
// write() per batch) before it is applied to the head pages and before
// Append() returns.
//
// Directory layout (data_dir/wal/):
//   <seq>.wal          segments, seq = 20-digit decimal, ascending
//   <seq>.ckpt         checkpoint: every point not yet in a synced page at
//                      the time segment <seq> was started; replay starts
//                      with it and continues with segments >= <seq>
//   *.tmp              an unfinished checkpoint, removed on open
// A segment covered by a checkpoint is removed unless a WalRetention
// (sundial/storage/wal_reader.h; the relay's unsent data) still needs it;
// such kept segments are read by WalReader only, never replayed.
//
// Segment and checkpoint format, version 1: a record log (record_log.h) with
// magic "SUNDWAL1" (segments) or "SUNDCKP1" (checkpoints). A segment is
// longer than its records while it is written: zeros follow them, up to
// where its blocks are allocated (up to 256 KiB ahead, and not past the
// segment size); once closed, up to the end of the 4 KiB block its records
// end in. Its header reaches the disk with its first fsync, so a power cut
// before that can leave a segment of zeros only, read as empty. A record
// of at most one block that would straddle two starts at the next block
// (zero padding before it) when everything before it is fsynced: the block
// it would have begun in is already on disk, and writing the record there
// would make the fsync after it write that block again, 8 KiB instead of 4
// for a small record (bench/README.md, sd_writes.sh).
// Record type 7, a batch of points (what EncodeWalBatch writes):
//   varint32 n
//   n times: varint64 (zigzag(series id - previous id) << 4 | code),
//                   previous = 0 first
//            varint64 zigzag(t - previous t in the batch; previous = 0 first)
//            code 0, int:   varint64 zigzag(value)
//            code 1, float: fixed64 IEEE-754 bits
//            code 2 + s (s = 0..9), a float that is the decimal m / 10^s:
//                   varint64 zigzag(m); the value is double(m) / 10^s, one
//                   IEEE division, bit-identical to the float written
// Why the id as a difference: a client sends a host's metrics together,
// and the ids of one host's series were given out together, so most
// differences take one byte with the code where the id took two or three
// (measured in bench/README.md, "Series ids as differences").
// Older batches, still replayed:
//   type 4: as type 7, with the id itself: varint64 (series id << 4 | code)
//   type 1: varint64 (series id << 1 | is_float), then t as above, then
//           the int as code 0 or the float as code 1.
// Checkpoints (version 1 since marks and pages were added; older
// checkpoints hold type 1 records only and are still read):
//   type 3, first record, partition marks (written by PartitionSet::Marks,
//     format in partition_set.h): how far each page file and index were
//     written when the checkpoint was taken
//   type 2, one page of unsealed points (the engine's memory):
//     varint32 series id, u8 kind (0 in-order, 1 out-of-order sorted,
//     2 out-of-order in arrival order), then the page (compress/
//     page_format.h) to the end of the record
// Record type 8 (segments), new series: the series dictionary's records
// that define them, as SeriesDict::ReplayNewRecords reads them
// (series_dict.h). Written before any batch that refers to them, so the
// fsync that makes a batch durable makes its new series durable too;
// series.log gets them later, written and fsynced before a checkpoint
// drops the segment. Replay adds those that series.log lacks.
// Record type 5 (segments) is a delete and type 6 (checkpoints) the
// deletion state; their formats are in tombstones.h.
// Replaying the same batch twice is harmless: for equal timestamps the last
// write wins, and replay preserves write order.
//
// Thread-safety: all methods are thread-safe. Append() serialises writers on
// a mutex; SyncTo() lets one thread fsync on behalf of all waiting ones
// (group commit of fsyncs).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/mutex.h"
#include "sundial/storage/storage.h"
#include "sundial/storage/wal_reader.h"

namespace sundial::storage {

constexpr uint8_t kWalPointsRecordV1 = 1;  // read only
constexpr uint8_t kWalPointsRecordV2 = 4;  // read only
constexpr uint8_t kWalPointsRecord = 7;
constexpr uint8_t kWalSeriesRecord = 8;  // segments
constexpr uint8_t kWalPageRecord = 2;   // checkpoints only
constexpr uint8_t kWalMarksRecord = 3;  // checkpoints only, first record
inline constexpr char kWalSegmentMagic[] = "SUNDWAL1";

// "<20-digit seq>.wal", and back (false if name is not a segment's).
std::string WalSegmentName(uint64_t seq);
bool ParseWalSegmentName(const std::string& name, uint64_t* seq);

// Encodes a batch as a complete record (header included) into *out, which
// is cleared first and reused (no allocation once it has grown).
void EncodeWalBatch(const SeriesPoint* points, size_t n, std::string* out);
// Whether records of this type are batches of points (any version).
bool IsWalPointsRecord(uint8_t type);
// Decodes the payload of a batch of points of any version (type says
// which), calling fn for each point. Returns false if the payload is
// malformed or type is not a batch (fn may have been called for a prefix).
bool DecodeWalPoints(uint8_t type, std::string_view payload,
                     const std::function<void(const SeriesPoint&)>& fn);
// Decodes a checkpoint page record's payload, calling fn for each point in
// page order. Returns false if the payload or the page is malformed (fn may
// have been called for a prefix).
bool DecodeCheckpointPage(std::string_view payload,
                          const std::function<void(const SeriesPoint&)>& fn);

// Whether name is a segment ("<seq>.wal") or a finished checkpoint
// ("<seq>.ckpt") file name, and its number.
bool ParseWalFileName(const std::string& name, bool* checkpoint, uint64_t* seq);

class Wal {
 public:
  // retention (borrowed, may be null) is consulted before any segment is
  // removed: segments it still needs stay on disk.
  Wal(Env* env, std::string dir, uint64_t segment_bytes, WalRetention* retention = nullptr);
  Wal(const Wal&) = delete;
  Wal& operator=(const Wal&) = delete;

  // The marks record (type 3) of the newest checkpoint, if it has one.
  // *found is false when there is no checkpoint, or it has no marks or
  // they are damaged. Call before Recover.
  Status ReadCheckpointMarks(std::string* payload, bool* found);
  // Scans the directory, removes unfinished checkpoints, and calls fn for
  // every record to replay: the newest checkpoint first, then the segments
  // from its sequence number on, oldest first. Damage is skipped and
  // described in *warnings. Then starts a fresh segment for new writes; if
  // that fails (a full disk) *open_error says why, Append returns
  // Unavailable and EnsureOpen() retries later. Replay needs no free space.
  // on_file, if set, hears which file the records that follow come from
  // (its sequence number; checkpoint or segment).
  Status Recover(const std::function<void(uint8_t type, std::string_view payload)>& fn,
                 std::vector<std::string>* warnings, uint64_t* corrupt_records,
                 Status* open_error,
                 const std::function<void(uint64_t seq, bool checkpoint)>& on_file = nullptr);
  // Opens a fresh segment if none is open (after Recover could not).
  Status EnsureOpen();
  // Whether a segment is open for Append.
  bool is_open() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return file_ != nullptr;
  }

  // Writes one encoded record (EncodeWalBatch) at the end of the current
  // segment (or at the next block, above). *lsn is the log position after it, for SyncTo. On error the
  // segment is cut back to where it was and nothing is acknowledged.
  Status Append(const std::string& record, uint64_t* lsn);
  // Returns once everything up to lsn is fsynced.
  Status SyncTo(uint64_t lsn);
  // fsyncs everything appended so far.
  Status Sync();
  // The current segment's number and end (a record boundary): what a
  // snapshot copies of it. 0, 0 if no segment is open.
  void Position(uint64_t* seq, uint64_t* end) EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    *seq = file_ ? seq_ : 0;
    *end = file_ ? offset_ : 0;
  }
  // True when the current segment has outgrown segment_bytes.
  bool WantsRotation() const { return wants_rotation_.load(std::memory_order_relaxed); }

  // Starts a new segment; *seq is its number. Segments before it can be
  // dropped once a checkpoint for *seq is written.
  Status Rotate(uint64_t* seq);
  // Streams checkpoint <seq>: Add() complete encoded records (buffered in
  // bounded chunks), then Finish() makes it durable atomically (tmp file,
  // fsync, rename, fsync dir) and removes older segments and checkpoints.
  class CheckpointWriter {
   public:
    CheckpointWriter(Wal* wal, uint64_t seq, std::unique_ptr<File> file);
    CheckpointWriter(const CheckpointWriter&) = delete;
    CheckpointWriter& operator=(const CheckpointWriter&) = delete;
    // Without Finish() the unfinished file is removed.
    ~CheckpointWriter();
    Status Add(const std::string& record);
    Status Finish();
    // Bytes added so far, header included.
    uint64_t size() const { return offset_ + buf_.size(); }

   private:
    Status Flush();
    Wal* const wal_;
    const uint64_t seq_;
    std::unique_ptr<File> file_;
    std::string buf_;
    uint64_t offset_ = 0;
  };
  Status NewCheckpoint(uint64_t seq, std::unique_ptr<CheckpointWriter>* out);
  // Removes every segment and checkpoint and starts an empty segment. Used
  // at clean shutdown once everything is in synced pages. With a non-empty
  // marks record (complete, EncodeWalBatch-style), also leaves a checkpoint
  // holding only it, for the new segment.
  Status Reset(const std::string& marks = std::string());

  // Where the next record will be appended: the current segment and its
  // end. Every record before it is completely written.
  WalPosition End() EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return WalPosition{seq_, offset_};
  }
  const std::string& dir() const { return dir_; }
  Env* env() const { return env_; }

  uint64_t bytes_written() const { return bytes_written_.load(std::memory_order_relaxed); }
  uint64_t syncs() const { return syncs_.load(std::memory_order_relaxed); }
  uint64_t write_errors() const { return write_errors_.load(std::memory_order_relaxed); }

 private:
  std::string SegmentPath(uint64_t seq) const;
  std::string CheckpointPath(uint64_t seq) const;
  // REQUIRES: the sync token (AcquireSyncToken) too.
  Status OpenSegment(uint64_t seq) REQUIRES(mu_);
  // The sync token: one thread at a time fsyncs or replaces file_. Taken
  // before mu_, never while holding it.
  void AcquireSyncToken() EXCLUDES(mu_, sync_mu_);
  void ReleaseSyncToken(uint64_t synced_lsn) EXCLUDES(sync_mu_);
  Status RemoveBefore(uint64_t seq, bool include_checkpoint_seq);
  // Whether retention_ still needs segment seq.
  bool Retained(uint64_t seq) const {
    return retention_ != nullptr && seq >= retention_->OldestWalSegmentNeeded();
  }
  Status ListFiles(std::vector<uint64_t>* segments, std::vector<uint64_t>* checkpoints);
  void ReplayFile(const std::string& path, std::string_view magic,
                  const std::function<void(uint8_t, std::string_view)>& fn,
                  std::vector<std::string>* warnings, uint64_t* corrupt_records);

  Env* const env_;
  const std::string dir_;
  const uint64_t segment_bytes_;
  WalRetention* const retention_;

  Mutex mu_;  // serialises writes and segment switches
  // GUARDED_BY(mu_). Replaced only by a holder of the sync token, because
  // SyncTo fsyncs it outside mu_ while holding the token.
  std::unique_ptr<File> file_ GUARDED_BY(mu_);
  uint64_t seq_ GUARDED_BY(mu_) = 0;
  uint64_t offset_ GUARDED_BY(mu_) = 0;  // end of the current segment
  // The current segment is this long, its blocks allocated
  // (File::Preallocate), kReserveAhead at a time but not past
  // segment_bytes_, so that an fsync writes the new bytes only and an
  // append never moves the end of the file.
  uint64_t reserved_ GUARDED_BY(mu_) = 0;
  static constexpr uint64_t kReserveAhead = 256 << 10;
  uint64_t lsn_ GUARDED_BY(mu_) = 0;     // bytes appended since open

  Mutex sync_mu_;
  CondVar sync_cv_{&sync_mu_};
  bool syncing_ GUARDED_BY(sync_mu_) = false;  // the sync token is taken
  // Written under sync_mu_ only; Append reads it without the lock to learn
  // whether the tail block is already on disk.
  std::atomic<uint64_t> synced_lsn_{0};

  std::atomic<bool> wants_rotation_{false};
  std::atomic<uint64_t> bytes_written_{0};
  std::atomic<uint64_t> syncs_{0};
  std::atomic<uint64_t> write_errors_{0};
};

}  // namespace sundial::storage
