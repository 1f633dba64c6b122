// Partition: the sealed pages of one time range [start, end): a page file
// (page_file.h) and a page index mapping each series to its pages.
//
// Directory: data_dir/part/<start>_<end>/ (signed decimal epoch ms) holding
// "pages" and "index".
//
// Index format, version 1: a record log (record_log.h) with magic
// "SUNDIDX1". Each record (type 1) lists pages, in page-file order:
//   varint32 n, then n times:
//     varint32 series id, varint64 offset - end of the previous page in
//     this record (0 before the first), varint32 record length, u8 flags
//     (page_file.h), varint64 zigzag(min_t - partition start),
//     varint64 max_t - min_t
// Entries are buffered and written as one record every 64 pages and on
// Sync(); pages written after the last record are found again through the
// WAL, which is only checkpointed after Sync(). After a crash, the page
// file is first cut back to the end recorded by the last checkpoint
// (CutToMark), so that the WAL's points land on disk exactly once.
// The index is a cache of what the page file says about itself: when it is
// missing or any record is damaged, Open() rebuilds it by scanning the page
// file and rewrites it. Entries that point beyond the end of a truncated
// page file are dropped.
//
// In memory: 20 bytes per page (Entry below: 40-bit offset, record length,
// flags, times relative to the partition start, a link to the previous
// entry of the same series), in blocks of kBlockEntries so that growing
// never copies; plus, per series id, the newest entry. Times are exact to
// the millisecond when the partition spans less than 2^32 ms (49 days);
// longer partitions keep min_t rounded down and max_t rounded up to units
// of 2^time_shift ms, which only makes a page look wider than it is.
// A page's record CRC is checked the first time the page is read; the
// entry remembers that, so later reads skip the check.
//
// Compaction (compaction.cc) moves every page into a cold file
// (cold_file.h) holding one zstd block per series, and removes the page file
// and index. Pages written later go to a new page file, whose header id
// differs from the one the cold file names as replaced: at Open, a page file
// with that id is a leftover of an interrupted compaction and is removed;
// "cold.tmp" is one of an unfinished compaction and is removed too. Readers
// see the cold pages (priority of in-order pages) before the page file's.
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "storage/cold_file.h"
#include "sundial/common/env.h"
#include "storage/page_file.h"
#include "sundial/common/mutex.h"
#include "sundial/common/types.h"

namespace sundial::storage {

class ReadAhead;  // read_ahead.h

// Where one sealed page lives.
struct PageRef {
  uint64_t offset = 0;
  Timestamp min_t = 0;
  Timestamp max_t = 0;
  uint32_t len = 0;
  uint8_t flags = 0;
  bool verified = false;  // its CRC was checked already
  bool cold = false;      // in the cold file: offset is within the series' block
  uint32_t entry = 0;     // index + 1 of its in-memory entry, 0 none
};

// The largest page file offset the in-memory index can hold (1 TiB).
constexpr uint64_t kMaxPageFileOffset = (uint64_t{1} << 40) - 1;

class Partition {
 public:
  Partition(Env* env, std::string dir, Timestamp start, Timestamp end, uint64_t window_bytes);
  Partition(const Partition&) = delete;
  Partition& operator=(const Partition&) = delete;
  ~Partition();

  // Loads the index if the directory exists; a partition without files is
  // created on the first AddPage. Problems are described in *warnings;
  // after_cut: the page file was cut by CutToMark, so index entries past
  // its end are expected (they are dropped without a warning).
  Status Open(std::vector<std::string>* warnings, bool after_cut = false);
  // Appends page (a compress page of series) to the page file and index.
  Status AddPage(SeriesId series, uint8_t flags, std::string_view page, Timestamp min_t,
                 Timestamp max_t);
  // One page for AddPages.
  struct NewPage {
    SeriesId series = 0;
    uint8_t flags = 0;
    std::string_view page;
    Timestamp min_t = 0;
    Timestamp max_t = 0;
  };
  // Appends pages[0, n), in order, with one write of the page file (the
  // same records and index entries as n AddPage calls). All or none.
  Status AddPages(const NewPage* pages, size_t n);
  // Pages of series overlapping [start, end], in write order.
  void PagesOf(SeriesId series, Timestamp start, Timestamp end, std::vector<PageRef>* out);
  // The newest timestamp of series in this partition, or kMinTimestamp.
  // Exact (it reads page headers in partitions of 2^32 ms or more).
  Timestamp MaxTimeOf(SeriesId series);
  bool HasSeries(SeriesId series);
  // Starts reading the page-file pages among refs into the page cache, all
  // at once (PageFile::WillNeed): one system call per page, cheap when they
  // are cached, and after a restart or an eviction the disk gets them in
  // parallel instead of one synchronous read after another.
  void WillNeed(const std::vector<PageRef>& refs);
  // ColdFile::WillNeed on the cold file, if there is one; returns the bytes
  // asked for, and in *covered how many of ids, from the first, it asked
  // for all of (ids.size() without a cold file).
  uint64_t WillReadCold(const std::vector<SeriesId>& ids, uint64_t max_bytes, size_t* covered);
  // WillNeed for the page-file pages of ids overlapping [start, end], all
  // in one go, taking series in the order given while their pages fit in
  // max_bytes. Returns the bytes asked for, and in *covered how many of
  // ids, from the first, had all their pages asked for. Reads only the
  // index. With keep not null, reads those pages into *keep instead
  // (PageFile::ReadJoined), for ReadPage.
  uint64_t WillReadPages(const std::vector<SeriesId>& ids, Timestamp start, Timestamp end,
                         uint64_t max_bytes, size_t* covered, ReadAhead* keep);
  // Copies the page at ref into *page, checking its CRC unless an earlier
  // read of the same page did. A page-file page that kept (may be null)
  // holds is taken from there, without reading the file.
  Status ReadPage(SeriesId series, const PageRef& ref, std::string* page,
                  const ReadAhead* kept = nullptr);
  // The points of a cold ref in time order when its block is columnar
  // (*columnar true; cold_file.h), without encoding a page; otherwise
  // *columnar is false and the caller uses ReadPage.
  Status ReadColdPoints(SeriesId series, const PageRef& ref, std::vector<Timestamp>* ts,
                        std::vector<Value>* vs, bool* columnar);
  // fsyncs the page file and then the index, if anything was written.
  Status Sync();
  // Before closing without a sync: writes the buffered index entries (no
  // fsync) and sets *unsynced if the files were written since the last
  // Sync(). Then the caller must SyncFiles(dir) before relying on them.
  Status PrepareClose(bool* unsynced);
  // fsyncs the page file and index of a closed partition in dir (those
  // that exist: compaction may have removed them).
  static Status SyncFiles(Env* env, const std::string& dir);
  // After Open() of a partition closed without a sync: the next Sync()
  // fsyncs its files even if nothing is written meanwhile.
  void MarkUnsynced();
  // The page file's end now (0 without files): a checkpoint's mark.
  uint64_t Mark();
  // Cuts the page file in dir back to `mark` bytes if it is longer: pages
  // written after a checkpoint are dropped before the WAL replays their
  // points again. Open() then drops their index entries. *cut tells
  // whether anything was removed.
  static Status CutToMark(Env* env, const std::string& dir, uint64_t mark, bool* cut);
  // Every series with pages here, ascending.
  std::vector<SeriesId> SeriesIds();
  // Whether a page file exists (pages not yet compacted), and its id.
  bool HasPageFile();
  uint32_t PageFileId();
  // Whether a cold file exists; *id is the id of the page file it replaced.
  bool ColdId(uint32_t* id);
  // Installs the finished cold file at tmp_path (see the top of this
  // file), which holds every page of the page file with id replaced_id
  // when it was replaced_size bytes long: renames it to "cold" and removes
  // the page file and index. InvalidArgument, with nothing changed, if the
  // page file is no longer that one or that long.
  // REQUIRES: no reader holds PageRefs of this partition (PartitionSet::
  // Exclusive).
  Status InstallCold(const std::string& tmp_path, uint32_t replaced_id, uint64_t replaced_size);
  // Replaces the cold file of a partition without a page file by the one
  // at tmp_path (written with the same replaced page file id): a rewrite
  // that dropped deleted points. InvalidArgument, with nothing changed, if
  // a page file exists now or there is no cold file.
  // REQUIRES: as InstallCold.
  Status ReplaceCold(const std::string& tmp_path);
  const std::string& dir() const { return dir_; }
  // Test hook: the next page goes at offset (see PageFile::TEST_SetEnd).
  Status TEST_SetPageFileEnd(uint64_t offset);

  // Reader and writer pins (see PartitionRef in partition_set.h): the set
  // closes or frees a partition only while it has none.
  void Pin() { pins_.fetch_add(1, std::memory_order_relaxed); }
  void Unpin() { pins_.fetch_sub(1, std::memory_order_acq_rel); }
  bool pinned() const { return pins_.load(std::memory_order_acquire) != 0; }

  Timestamp start() const { return start_; }
  Timestamp end() const { return end_; }
  uint64_t page_count();
  size_t MemoryUsage();
  uint64_t file_bytes();

 private:
  static constexpr uint32_t kBlockBits = 11;
  static constexpr uint32_t kBlockEntries = 1u << kBlockBits;
  static constexpr uint32_t kLenBits = 18;  // record length < 256 KiB
  static constexpr uint32_t kFlagOutOfOrderBit = 1u << 26;
  static constexpr uint32_t kVerifiedBit = 1u << 27;
  // One page, 20 bytes, no padding on any ABI.
  struct Entry {
    uint32_t prev;       // index + 1 of the previous entry of the series, 0 none
    uint32_t offset_lo;  // low 32 bits of the record offset
    uint32_t min_rel;    // (min_t - start) >> time_shift_, rounded down
    uint32_t span;       // max_t - min_t in units, rounded up (see above)
    uint32_t bits;       // len (kLenBits) | offset bits 32..39 << 18 | flags
  };
  static_assert(sizeof(Entry) == 20, "Entry layout");
  Entry& At(uint32_t index) REQUIRES(mu_) {
    return blocks_[index >> kBlockBits].get()[index & (kBlockEntries - 1)];
  }
  PageRef RefOf(uint32_t index) REQUIRES(mu_);
  uint64_t OffsetOf(const Entry& e) const {
    return (static_cast<uint64_t>((e.bits >> kLenBits) & 0xff) << 32) | e.offset_lo;
  }
  Status EnsureFiles() REQUIRES(mu_);
  Status LoadIndex(uint64_t size, std::vector<std::string>* warnings, bool* damaged,
                   bool after_cut) REQUIRES(mu_);
  Status RebuildIndex(std::vector<std::string>* warnings) REQUIRES(mu_);
  // Rewrites the index file from the entries in memory (after entries past
  // the end of the page file were dropped).
  Status RewriteIndex() REQUIRES(mu_);
  // Replaces the index file by `contents` (tmp file, fsync, rename).
  Status ReplaceIndexFile(const std::string& contents) REQUIRES(mu_);
  void AddEntry(SeriesId series, const PageRef& ref) REQUIRES(mu_);
  // Appends one entry to unflushed_.
  void BufferEntry(SeriesId series, const PageRef& ref) REQUIRES(mu_);
  // Appends the buffered entries to *out as one index record; the buffer
  // is left as it is.
  void AppendBufferedRecord(std::string* out) const REQUIRES(mu_);
  // Empties the buffer of entries.
  void ClearBuffer() REQUIRES(mu_);
  // Writes the buffered entries as one index record to the index file;
  // on failure they stay buffered.
  Status FlushIndex() REQUIRES(mu_);
  bool DecodeRecord(std::string_view in, uint64_t page_end, uint64_t* dropped) REQUIRES(mu_);
  // Opens "cold" if present, removing leftovers of an interrupted
  // compaction (see the top of this file).
  Status OpenCold(std::vector<std::string>* warnings) REQUIRES(mu_);
  // Forgets every page-file entry (after the page file went into cold).
  void ClearEntries() REQUIRES(mu_);
  // An id for a new page file: nonzero and not the one cold replaced.
  uint32_t NewPageFileId() REQUIRES(mu_);
  // The cold file, or null. Safe to use without mu_ while pinned: it is
  // only replaced under PartitionSet::Exclusive.
  ColdFile* cold() EXCLUDES(mu_);

  Env* const env_;
  const std::string dir_;
  const Timestamp start_;
  const Timestamp end_;
  const uint64_t window_bytes_;

  Mutex mu_;
  std::unique_ptr<PageFile> pages_ GUARDED_BY(mu_);  // null until files exist
  std::unique_ptr<File> index_ GUARDED_BY(mu_);
  std::unique_ptr<ColdFile> cold_ GUARDED_BY(mu_);  // null until compacted
  uint64_t index_end_ GUARDED_BY(mu_) = 0;
  std::string unflushed_ GUARDED_BY(mu_);  // encoded entries not yet written
  uint32_t unflushed_count_ GUARDED_BY(mu_) = 0;
  uint64_t unflushed_end_ GUARDED_BY(mu_) = 0;  // end of the last buffered page
  bool dirty_ GUARDED_BY(mu_) = false;          // written since the last Sync
  const uint32_t time_shift_;  // 0 unless the partition spans 2^32 ms or more
  std::atomic<uint32_t> pins_{0};
  // Blocks come from AllocatePages, so that a closed partition's index goes
  // back to the OS rather than stay as free heap.
  struct BlockFree {
    void operator()(Entry* e) const { FreePages(e, kBlockEntries * sizeof(Entry)); }
  };
  std::vector<std::unique_ptr<Entry, BlockFree>> blocks_ GUARDED_BY(mu_);
  uint32_t entry_count_ GUARDED_BY(mu_) = 0;
  std::vector<uint32_t> last_ GUARDED_BY(mu_);  // by series, index + 1 of newest
};

}  // namespace sundial::storage
