// Tailing the write-ahead log from outside storage: what the relay
// (sundial/relay) forwards is exactly what the WAL accepted, in order.
//
// Why here: the WAL's files and formats are storage's (src/storage/wal.h
// documents the byte layout, version 1). Other modules read them only
// through WalReader, and keep segments alive only through WalRetention, so
// the dependency stays one way: storage never includes the relay.
//
// A WalPosition names a record boundary: segment sequence number and byte
// offset in that segment file (0 = before its file header, i.e. its first
// record). Positions only grow: new segments get larger numbers.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/storage/storage.h"

namespace sundial::storage {

struct WalPosition {
  uint64_t segment = 0;
  uint64_t offset = 0;
};

inline bool operator==(const WalPosition& a, const WalPosition& b) {
  return a.segment == b.segment && a.offset == b.offset;
}
inline bool operator<(const WalPosition& a, const WalPosition& b) {
  return a.segment != b.segment ? a.segment < b.segment : a.offset < b.offset;
}

constexpr uint64_t kNoWalSegmentNeeded = std::numeric_limits<uint64_t>::max();

// Asked by storage before it removes WAL segments (after a checkpoint, at
// clean shutdown, during recovery): segments numbered at or above the
// answer are kept even when a checkpoint covers them.
// Thread-safety: called from the maintenance thread and from Open() and
// the destructor; must be cheap and thread-safe.
class WalRetention {
 public:
  virtual ~WalRetention() = default;
  // The smallest segment number still needed, kNoWalSegmentNeeded if none.
  virtual uint64_t OldestWalSegmentNeeded() const = 0;
};

struct WalSegmentInfo {
  uint64_t segment = 0;
  uint64_t size = 0;  // bytes on disk
};

// Reads the batches appended to the WAL, oldest first, up to the end of
// what has been appended so far, then again as more arrives.
// Thread-safety: one thread at a time per reader; many readers may tail
// one WAL concurrently with appends.
class WalReader {
 public:
  virtual ~WalReader() = default;

  // Appends the points of the next batch record after position() to
  // *points and returns true. Returns false when there is nothing more to
  // read now (call again later). Damaged bytes, records of unknown types
  // and segments removed before they were read are skipped and described
  // by TakeWarnings(); never fails otherwise.
  virtual bool Next(std::vector<SeriesPoint>* points) = 0;
  // The record boundary after the last record Next() returned or skipped.
  virtual WalPosition position() const = 0;
  // Continues reading at pos (a position() obtained earlier, or a segment
  // start {seq, 0}).
  virtual void Seek(const WalPosition& pos) = 0;
  // Where the WAL ends now (the next record will be written there).
  virtual WalPosition End() = 0;
  // The segments on disk, ascending.
  virtual Status Segments(std::vector<WalSegmentInfo>* out) = 0;
  // Warnings since the last call (skipped damage, missing segments).
  virtual std::vector<std::string> TakeWarnings() = 0;
};

}  // namespace sundial::storage
