// Rollup day files: the hour rollups of every series for one UTC day.
//
// Format, version 1. File data_dir/rollup/<day start, epoch ms>.rlp:
//
//   header  (24 bytes)  "SUNDRLP1", fixed32 version = 1,
//                       fixed64 day start (int64 two's complement),
//                       fixed32 masked crc32c of the previous 20 bytes
//   blocks              one per series that has points that day, by
//                       ascending series id:
//                         fixed32 payload length, payload,
//                         fixed32 masked crc32c(payload)
//   index               fixed32 payload length, payload,
//                       fixed32 masked crc32c(payload); payload =
//                         varint32 n, then n times: varint32 series id
//                         minus the previous one (the first: the id),
//                         varint64 block offset minus the previous one
//                         (the first: minus 24)
//   footer  (16 bytes)  fixed64 index offset, fixed32 n, "RLPE"
//
// Block payload: varint32 series id, varint32 record count (1..24), then
// per hour with points, ascending:
//   varint32 (hour gap << 2) | flags   hour gap: hour of day minus the
//                                      previous record's minus 1 (the
//                                      first: the hour of day);
//                                      flags 1 = has NaN, 2 = integral
//   varint64 count
//   varint64 nan count                 only with flag 1
//   varint64 zigzag(off - previous off), varint64 zigzag(span - previous
//   span), where off = first_t - hour and span = last_t - first_t (the
//   previous ones are 0 before the first record)
//   value first, value last, and if count > nan count: value sum,
//   value min_run, value max_run       (fields of hour_stats.h)
// A value is one varint64 tag, low 2 bits saying how it is coded:
//   0  integer i: tag = zigzag(i - prev) << 2; the double is exactly i
//   1  decimal s * 10^-k, k in 1..3: tag = zigzag(s - prev) << 4 | k << 2 | 1;
//      the double is exactly (double)s / 10^k
//   2  raw: tag = 2, then fixed64 IEEE-754 bits
//   3  near a decimal: tag = zigzag(s - prev) << 4 | k << 2 | 3, then
//      varint64 x < 2^28; the double has the bits of (double)s / 10^k
//      XOR x (a sum of decimals is a few low bits away from one)
// prev is per field (first, last, sum, min, max) and per block, starting at
// 0: the last integer or scaled integer coded for that field.
//
// Files are written whole to "<name>.tmp", fsync'ed and renamed, so a
// reader sees the old or the new file, never a torn one.
//
// Thread-safety: a DayFileReader is immutable after Open and safe to use
// from many threads (pread). A DayFileWriter is used by one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/status.h"
#include "sundial/rollup/hour_stats.h"

namespace sundial::rollup {

constexpr uint32_t kRollupFileVersion = 1;
constexpr size_t kRollupHeaderBytes = 24;
constexpr size_t kRollupFooterBytes = 16;

// Appends the block payload of one series' hours of one day.
// REQUIRES: hours non-empty, ascending, all within the day of day_start,
// none empty.
void EncodeBlock(SeriesId id, Timestamp day_start, const std::vector<HourStats>& hours,
                 std::string* out);
// Decodes a block payload. Corruption on malformed input (never crashes).
Status DecodeBlock(std::string_view payload, Timestamp day_start, SeriesId* id,
                   std::vector<HourStats>* hours);

// The file name of a day ("<day_start>.rlp") and its parse.
std::string DayFileName(Timestamp day_start);
bool ParseDayFileName(std::string_view name, Timestamp* day_start);

class DayFileWriter {
 public:
  DayFileWriter() = default;
  DayFileWriter(const DayFileWriter&) = delete;
  DayFileWriter& operator=(const DayFileWriter&) = delete;
  ~DayFileWriter();

  // Creates (truncating) path through env. env is borrowed and must outlive
  // the writer.
  Status Open(Env* env, const std::string& path, Timestamp day_start);
  // REQUIRES: ids strictly ascending over calls; hours as EncodeBlock.
  Status Add(SeriesId id, const std::vector<HourStats>& hours);
  // Writes index and footer and fsyncs. The file is complete after this.
  Status Finish();
  uint64_t bytes() const { return offset_; }

 private:
  Status Flush();

  std::unique_ptr<File> file_;
  std::string path_;
  Timestamp day_start_ = 0;
  uint64_t offset_ = 0;   // bytes written or buffered
  uint64_t written_ = 0;  // bytes handed to file_
  std::string buf_;
  std::string block_;
  std::vector<SeriesId> ids_;
  std::vector<uint64_t> offsets_;
};

class DayFileReader {
 public:
  DayFileReader(const DayFileReader&) = delete;
  DayFileReader& operator=(const DayFileReader&) = delete;
  ~DayFileReader();

  // Opens and validates header, index and footer. Corruption if damaged.
  // Reads through env, which is borrowed and must outlive the reader.
  static Status Open(Env* env, const std::string& path, Timestamp day_start,
                     std::unique_ptr<DayFileReader>* out);

  // The hours of series id (empty if it has none that day). Corruption if
  // its block is damaged.
  Status Read(SeriesId id, std::vector<HourStats>* hours) const;
  // Every series id in the file, ascending.
  const std::vector<SeriesId>& ids() const { return ids_; }
  Timestamp day_start() const { return day_start_; }
  uint64_t file_bytes() const { return file_bytes_; }
  size_t MemoryUsage() const {
    return ids_.capacity() * sizeof(SeriesId) + offsets_.capacity() * sizeof(uint64_t);
  }

 private:
  DayFileReader() = default;
  Status ReadAt(uint64_t offset, size_t n, std::string* out) const;

  std::unique_ptr<File> file_;
  std::string path_;
  Timestamp day_start_ = 0;
  uint64_t file_bytes_ = 0;
  uint64_t index_offset_ = 0;
  std::vector<SeriesId> ids_;
  std::vector<uint64_t> offsets_;  // block start; the next one (or the index) ends it
};

}  // namespace sundial::rollup
