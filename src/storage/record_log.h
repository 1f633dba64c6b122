// Checksummed record logs: the framing shared by the WAL segments, the series
// dictionary log, checkpoints and partition page indexes.
//
// Format, version 1. A log file starts with a 16-byte file header:
//   [0,8)   magic, 8 ASCII bytes naming the file kind (e.g. "SUNDWAL1")
//   [8,12)  fixed32 format version (1)
//   [12,16) fixed32 reserved, 0
// followed by records, back to back:
//   [0,4)   fixed32 masked CRC-32C of bytes [8, 9 + length) (type + payload)
//   [4,8)   fixed32 length of the payload
//   [8]     record type, never 0 (meaning is up to the file kind)
//   [9,..)  payload
// All integers little-endian. Zero bytes where a record would start are not
// damage when they run to the next multiple of kLogBlockSize (a writer
// that starts a record at the next block leaves them) or to the end of the
// file (space allocated ahead of the records): readers skip them without
// a word. Whole zero blocks followed by more records are reported as
// skipped. A reader that meets a record whose CRC, length
// or type does not check out skips forward byte by byte until a valid record
// starts again (or the file ends) and reports the skipped range, so damage in
// the middle of a log loses only the damaged records. A damaged file header
// loses nothing by itself: the records after it are still read
// (OpenSkippingHeader), and the owner writes a fresh header.
//
// Thread-safety: a LogWriter or LogReader is used by one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/env.h"

namespace sundial::storage {

constexpr size_t kLogFileHeaderSize = 16;
constexpr size_t kLogRecordHeaderSize = 9;
constexpr uint32_t kMaxLogRecordBytes = 64u << 20;
constexpr uint64_t kLogBlockSize = 4096;

// Returns the 16-byte file header for a magic of exactly 8 characters:
// magic, fixed32 version 1, fixed32 tag (what the tag means is the file's
// owner's; 0 unless it says otherwise).
std::string LogFileHeader(std::string_view magic, uint32_t tag = 0);

// Fills in the 9-byte record header at the front of *buf, whose payload is
// buf[kLogRecordHeaderSize, end). REQUIRES: buf->size() >= 9, type != 0.
void FinishLogRecord(std::string* buf, uint8_t type);
// Appends a whole record (header + payload) to *dst.
void AppendLogRecord(std::string* dst, uint8_t type, std::string_view payload);

// Reads records of one log file sequentially through a bounded buffer.
class LogReader {
 public:
  // Reads `file` (borrowed) from offset kLogFileHeaderSize to `file_size`.
  // The header's magic must equal `magic`; otherwise the reader yields no
  // records and Open() returns Corruption.
  LogReader(File* file, uint64_t file_size, std::string_view magic);
  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;

  Status Open();
  // Open() for a file allocated ahead of what was written to it (a WAL
  // segment, whose header reaches the disk with its first fsync): a header
  // of 16 zero bytes was never written, which is not damage. Its block is
  // then read like any other: zeros to the end of the file are nothing,
  // zero blocks followed by records are reported as skipped.
  Status OpenAllocated();
  // For a file whose header is damaged: reads the records after where the
  // header should be anyway (each record carries its own CRC, so whatever
  // is intact is found). Never fails.
  void OpenSkippingHeader() {
    buf_offset_ = kLogFileHeaderSize;
    status_ = Status::OK();
  }
  // Continues reading at a record boundary `offset` (>= the header size)
  // found earlier with end_of_valid(), without reading the header.
  void Seek(uint64_t offset) {
    buf_.clear();
    pos_ = 0;
    buf_offset_ = offset;
    end_of_valid_ = offset;
    status_ = Status::OK();
  }
  // The next valid record. Returns false at the end of the file or on a
  // read error (see status()). The payload view stays valid until the next
  // call.
  bool Next(uint8_t* type, std::string_view* payload);
  // Offset of the byte after the last valid record returned.
  uint64_t end_of_valid() const { return end_of_valid_; }
  // Descriptions of skipped byte ranges ("path: skipped 12 bytes at 4096:
  // bad checksum"), in file order.
  const std::vector<std::string>& skipped() const { return skipped_; }
  uint64_t skipped_bytes() const { return skipped_bytes_; }
  const Status& status() const { return status_; }

 private:
  // Makes at least n bytes available at pos_ unless the file ends first.
  // Returns the number available (<= n).
  size_t Ensure(size_t n);
  Status OpenHeader(bool zeros_are_unwritten);
  // 0 = valid record at pos_, else a reason for rejecting it.
  const char* Check(size_t* record_len);
  // The bytes from pos_ to the next block boundary (or the end of the
  // file, if sooner) when they are all zero, else 0.
  size_t ZerosToBlockEnd();
  void NoteSkip(uint64_t start, uint64_t end, const char* reason);

  File* const file_;
  const uint64_t file_size_;
  const std::string magic_;
  std::string buf_;
  uint64_t buf_offset_ = 0;  // file offset of buf_[0]
  size_t pos_ = 0;           // read position in buf_
  uint64_t end_of_valid_ = kLogFileHeaderSize;
  std::vector<std::string> skipped_;
  uint64_t skipped_bytes_ = 0;
  Status status_;
};

}  // namespace sundial::storage
