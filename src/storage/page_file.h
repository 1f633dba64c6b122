// PageFile: one partition's page file. Sealed pages of many series are
// appended to it as variable-length records and read back one record per
// pread.
//
// Format, version 1 (file "pages" in a partition directory):
//   file header, 16 bytes: "SUNDPAG1", fixed32 version 1, fixed32 file id
//     (chosen at creation, nonzero; 0 in files written before ids existed;
//     a compacted partition's cold file names the id it replaced)
//   page records, back to back:
//     [0,4)   fixed32 masked CRC-32C of bytes [4, len)
//     [4,8)   fixed32 len, the whole record's length in bytes
//     [8]     record version, 1
//     [9]     flags: bit 0 = out-of-order page (late points, sorted and
//             deduplicated; it overrides in-order pages on equal timestamps)
//     [10,14) fixed32 series id
//     [14,len) the page (compress/page_format.h), header first
//   A record never crosses a window boundary (a multiple of the window
//   size): when it would, the rest of the window is left zero and the
//   record starts at the next boundary.
// All integers little-endian. Records can be found without the index by
// scanning (Scan), which is how a missing or damaged index is rebuilt.
//
// Why pread and not a mapping: a series' pages are scattered over the file
// (pages of all series are appended as they fill). Through mapped windows
// each page fault read ahead up to 128 KiB around a 512-byte page after a
// restart (the whole file for one metric of 100 hosts), and a file larger
// than the mapped windows remapped a window for almost every page even
// when cached. A pread of one record reads only the disk pages under it,
// and WillNeed() lets the pages of a series be fetched in parallel first.
// (window_bytes survives as the boundary records never cross, so that
// files written with windows keep their layout.)
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/mutex.h"
#include "sundial/common/types.h"

namespace sundial::storage {

constexpr uint32_t kPageRecordHeaderSize = 14;
constexpr uint8_t kPageFlagOutOfOrder = 1;

// Records that PageFile::ReadJoined read: stretches of the file back to
// back in one buffer (one allocation, not one per stretch), found by file
// offset.
struct JoinedRead {
  struct Stretch {
    uint64_t offset;  // in the file
    size_t at;        // in bytes
    size_t len;
  };
  std::unique_ptr<char[]> bytes;
  std::vector<Stretch> stretches;  // by offset
  // The len bytes of the file at offset, or null if no stretch holds them.
  const char* Find(uint64_t offset, uint32_t len) const;
};

// One record for PageFile::AppendMany: the page in, where it went out.
struct PageToWrite {
  SeriesId series = 0;
  uint8_t flags = 0;
  std::string_view page;
  uint64_t offset = 0;  // set by AppendMany
  uint32_t len = 0;     // set by AppendMany
};

class PageFile {
 public:
  // window_bytes is rounded up to a multiple of the system page size and to
  // at least 64 KiB.
  PageFile(Env* env, std::string path, uint64_t window_bytes);
  PageFile(const PageFile&) = delete;
  PageFile& operator=(const PageFile&) = delete;

  // Opens the file, creating it with a header carrying new_file_id if it is
  // missing or empty.
  Status Open(uint32_t new_file_id = 0);
  // Appends a record for page; *offset and *len locate it.
  Status Append(SeriesId series, uint8_t flags, std::string_view page, uint64_t* offset,
                uint32_t* len);
  // Appends the records of pages[0, n) with one write, laid out exactly as
  // n Appends would lay them out, and sets each one's offset and len. On
  // error nothing is appended (the file is cut back).
  Status AppendMany(PageToWrite* pages, size_t n);
  // Reads the record at [offset, offset + len) and copies its page into
  // *page. Corruption if the record lies beyond the end of the file, if its
  // header does not match (length, version, series) or, with check_crc, if
  // its CRC fails. Callers check the CRC on a page's first read only.
  Status Read(uint64_t offset, uint32_t len, SeriesId series, bool check_crc,
              std::string* page);
  // Starts reading the records at `ranges` (offset, length) into the page
  // cache without waiting (File::WillNeed), records less than a system
  // page apart as one range: a reader that is about to read scattered
  // records of one series gets them from the device in parallel, and
  // without the readahead that a page fault on a window does around it.
  // Sorts *ranges.
  void WillNeed(std::vector<std::pair<uint64_t, uint32_t>>* ranges);
  // Reads the records at `ranges` into memory for a reader that will read
  // them all: joined as WillNeed joins them, every stretch asked of the
  // device first (so that it reads them in parallel), then each read with
  // one pread into *out; bytes beyond the end of the file are left out.
  // Sorts *ranges.
  Status ReadJoined(std::vector<std::pair<uint64_t, uint32_t>>* ranges, JoinedRead* out);
  // Read for a record already in memory: rec holds the len bytes of the
  // file at offset. Checks and copies it as Read does.
  Status ParseRecord(const char* rec, uint64_t offset, uint32_t len, SeriesId series,
                     bool check_crc, std::string* page) const;
  // Calls fn for every valid record, in file order; damaged stretches are
  // skipped and described in *warnings.
  Status Scan(const std::function<void(uint64_t offset, uint32_t len, SeriesId series,
                                       uint8_t flags, std::string_view page)>& fn,
              std::vector<std::string>* warnings);
  Status Sync();
  uint64_t size();
  const std::string& path() const { return path_; }
  // The id in the file's header (see the format above).
  uint32_t file_id();

  // Test hook: makes the next record start at offset (for files > 4 GiB,
  // left sparse). REQUIRES: offset >= size().
  void TEST_SetEnd(uint64_t offset);

 private:
  // Whether a record may lie at [offset, offset + len): past the header,
  // of a record's size, within one window.
  bool Plausible(uint64_t offset, uint32_t len) const;
  Status Damaged(uint64_t offset) const;
  // Sorts ranges and joins those less than a system page apart into
  // stretches (offset, length), in file order.
  static std::vector<std::pair<uint64_t, uint64_t>> Join(
      std::vector<std::pair<uint64_t, uint32_t>>* ranges);

  Env* const env_;
  const std::string path_;
  const uint64_t window_bytes_;
  Mutex mu_;
  std::unique_ptr<File> file_ GUARDED_BY(mu_);
  uint64_t end_ GUARDED_BY(mu_) = 0;  // next record; the valid size
  uint32_t file_id_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::storage
