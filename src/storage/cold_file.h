// ColdFile: a compacted partition's points, one zstd block per series.
//
// Why: a partition that stopped changing is read far more than it is
// written. Compaction (compaction.cc) merges each series' pages, out of
// order ones included, into its points in time order, stores them as
// columns (cold_block.h) and compresses them with zstd. A read of one series
// is then one block read, one decompression and one decoding of its
// columns; readers take the points as they are (ReadPoints), and the file
// is small.
//
// Format, version 3 (file "cold" in a partition directory), little-endian:
//   header, 16 bytes: "SUNDCLD1", fixed32 version (3), fixed32 id of the
//     page file it replaced (page_file.h; pages of a page file with that id
//     are already in this file)
//   blocks, back to back from offset 16, in any order of series (the
//     compaction writes the series of one metric side by side), each:
//     block header, 24 bytes (versions 2 and 3): "SCBK", fixed32 series id,
//       fixed32 compressed length, fixed32 raw length, fixed32 masked
//       CRC-32C of the compressed bytes, fixed32 masked CRC-32C of the
//       header's first 20 bytes
//     one zstd frame whose content is a series' block (below)
//   index: varint32 n, then n times, ascending by series id:
//     varint32 series id - previous id (the first: the id itself),
//     varint64 offset of the zstd frame (after the block header),
//     varint32 compressed length, varint32 raw length,
//     fixed32 masked CRC-32C of the compressed bytes, varint32 page count,
//     varint64 zigzag(min_t - partition start), varint64 max_t - min_t
//   footer, 24 bytes: fixed64 index offset, fixed32 index length,
//     fixed32 masked CRC-32C of the index, "SUNDCLD3" ("SUNDCLDE" in
//     versions 1 and 2)
// A series' block (decompressed), version 3: byte kind, then
//   kind 1: a columnar block (cold_block.h), points in time order;
//   kind 0: a page block as in version 2 (a series too long for one
//     columnar block, kMaxColdBlockPoints).
//   In the index, the page count is that of the writer's pages.
// A page block (decompressed): varint32 page count; for each page,
//   varint32 length,
//   varint64 zigzag(min_t - partition start), varint64 max_t - min_t;
//   then the pages (compress/page_format.h) back to back in the same order.
//   Pages are in time order and never overlap.
//
// Version 2 is version 3 with page blocks only and no kind byte; version 1
// is version 2 without block headers. Both are still read (files written
// before version 3), and compaction after a delete rewrites them in
// version 3.
//
// Damage: a damaged block fails only the reads of its series, with
// Corruption. A damaged header is ignored while footer and index are sound
// (only the replaced page file id is then taken as 0). A damaged footer or
// index in a version 2 file is survived by scanning for block headers:
// every block whose header CRC, data CRC and page table check out is found
// again (recovered() says so), so only the damaged blocks' series lose
// this partition. A version 1 file with a damaged footer or index fails to
// open (the partition then keeps its page file if it still has one, see
// partition.h).
//
// Thread-safety: ColdFile's methods are thread-safe. ColdFileWriter is for
// one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/mutex.h"
#include "sundial/common/types.h"
#include "sundial/compress/zstd_codec.h"

namespace sundial::storage {

constexpr uint64_t kColdHeaderSize = 16;
constexpr uint64_t kColdFooterSize = 24;
constexpr uint64_t kColdBlockHeaderSize = 24;
// Cold pages are larger than the head pages: fewer page headers and first
// points, and a series' block is decoded whole anyway.
constexpr uint32_t kColdPageSize = 4096;
// Points per page of a columnar block: even points that need every escape
// code fit one page of compress::kMaxPageSize.
constexpr uint32_t kColdChunkPoints = 2048;

// One page of a series' block. In a columnar block (version 3) a "page" is
// a run of at most kColdChunkPoints points: offset is its first point's
// index and len its point count; ReadPoints hands them out as they are and
// ReadPage encodes them into a page.
struct ColdPage {
  uint32_t offset = 0;  // in the decompressed block
  uint32_t len = 0;
  Timestamp min_t = 0;
  Timestamp max_t = 0;
};

// Writes a cold file. Series may be added in any order, each once: blocks
// lie in the file in the order added (compaction puts the series of a
// metric side by side, so that a query of one metric reads one stretch of
// the file), and the index is sorted by id at Finish.
class ColdFileWriter {
 public:
  // version 3, or 2 for tests of the older format's reader.
  ColdFileWriter(Env* env, Timestamp partition_start, uint32_t version = 3);
  // Creates (truncating) path and writes the header.
  Status Open(const std::string& path, uint32_t replaced_page_file_id);
  // Adds one series' pages (time order, non-overlapping; min/max per page).
  // REQUIRES: pages non-empty. A series added twice fails Finish.
  Status AddSeries(SeriesId series, const std::vector<std::string>& pages,
                   const std::vector<ColdPage>& times);
  // Writes the index and footer and fsyncs the file.
  Status Finish();
  uint64_t bytes() const { return end_; }

 private:
  // Fills raw_ with series' version 3 block.
  Status ColumnarBlock(const std::vector<std::string>& pages);

  Env* const env_;
  const Timestamp start_;
  const uint32_t version_;
  compress::ZstdCodec zstd_;
  std::unique_ptr<File> file_;
  uint64_t end_ = 0;
  // What the index says of one block (cold_file.h's format above).
  struct IndexEntry {
    SeriesId series = 0;
    uint32_t comp_len = 0;
    uint32_t raw_len = 0;
    uint32_t crc = 0;
    uint32_t pages = 0;
    uint64_t offset = 0;
    Timestamp min_t = 0;
    Timestamp max_t = 0;
  };
  std::vector<IndexEntry> index_;  // in the order added
  std::string raw_, packed_;
  std::vector<Sample> points_;
};

class ColdFile {
 public:
  // Opens path and reads its index. Corruption when the header, footer or
  // index is damaged; IOError from the file system.
  static Status Open(Env* env, const std::string& path, Timestamp partition_start,
                     Timestamp partition_end, std::unique_ptr<ColdFile>* out);
  // The same over an open file (tests and fuzzing read from memory).
  // verify_checksums false skips the index and block CRCs, so that a
  // fuzzer reaches the parsers behind them; the parsers stay safe on any
  // bytes either way.
  static Status FromFile(std::unique_ptr<File> file, Timestamp partition_start,
                         Timestamp partition_end, std::unique_ptr<ColdFile>* out,
                         bool verify_checksums = true);

  uint32_t replaced_page_file_id() const { return replaced_id_; }
  // Why the index was rebuilt by a scan (footer or index damaged); empty
  // when the index was read.
  const std::string& recovered() const { return recovered_; }
  bool HasSeries(SeriesId series) const { return Find(series) != nullptr; }
  // Newest timestamp of series here, or kMinTimestamp.
  Timestamp MaxTimeOf(SeriesId series) const;
  // Pages of series overlapping [start, end], in time order. Reads (and
  // caches) the series' block.
  Status PagesOf(SeriesId series, Timestamp start, Timestamp end, std::vector<ColdPage>* out)
      EXCLUDES(mu_);
  // Copies the page at p of series' block into *page.
  Status ReadPage(SeriesId series, const ColdPage& p, std::string* page) EXCLUDES(mu_);
  // The points of p (a page listed by PagesOf) in time order, their
  // timestamps in *ts and values in *vs, without encoding a page, when
  // series' block is columnar (*columnar true); otherwise *columnar is
  // false and nothing is read (use ReadPage).
  Status ReadPoints(SeriesId series, const ColdPage& p, std::vector<Timestamp>* ts,
                    std::vector<Value>* vs, bool* columnar) EXCLUDES(mu_);
  std::vector<SeriesId> SeriesIds() const;
  // Asks the kernel to read the blocks of ids ahead, at most max_bytes of
  // them (the ids' order decides which), with one request per stretch of
  // adjacent blocks. Returns the bytes asked for, and in *covered how many
  // of ids, from the first, it asked for all of (an id without blocks
  // here counts). A hint: reads stay correct without it.
  uint64_t WillNeed(const std::vector<SeriesId>& ids, uint64_t max_bytes, size_t* covered) const;
  uint64_t page_count() const { return pages_; }
  uint64_t file_bytes() const { return file_size_; }
  size_t MemoryUsage() EXCLUDES(mu_);

 private:
  struct Entry {
    SeriesId id = 0;
    uint32_t comp_len = 0;
    uint32_t raw_len = 0;
    uint32_t crc = 0;
    uint64_t offset = 0;
    Timestamp min_t = 0;
    Timestamp max_t = 0;
  };
  // A decompressed block with its page table: pages in raw, or (columnar)
  // runs of points.
  struct Block {
    SeriesId id = 0;
    std::string raw;
    std::vector<Timestamp> ts;  // columnar blocks only: the points as columns
    std::vector<Value> vs;
    std::vector<ColdPage> pages;
    size_t point_bytes() const { return ts.size() * (sizeof(Timestamp) + sizeof(Value)); }
  };
  static constexpr size_t kCachedBlocks = 4;
  // Decoded columnar points take 24 bytes each: beyond this many bytes the
  // cache keeps only the newest block.
  static constexpr size_t kCachedPointBytes = 512 * 1024;

  ColdFile(std::unique_ptr<File> file, std::string path, Timestamp start, uint64_t blocks_end,
           uint64_t file_size)
      : file_(std::move(file)),
        path_(std::move(path)),
        start_(start),
        blocks_end_(blocks_end),
        file_size_(file_size) {}
  Status ParseIndex(std::string_view in, Timestamp end);
  // Opens through footer and index; the returned file has no file_ yet.
  static Status FromIndex(File* f, uint64_t size, bool verify_checksums, const char* header,
                          bool header_ok, Timestamp partition_start, Timestamp partition_end,
                          std::unique_ptr<ColdFile>* out);
  // Rebuilds entries_ from the intact version 2 blocks. Corruption if none.
  Status ScanBlocks(Timestamp end);
  const Entry* Find(SeriesId series) const;
  // The block of e, from the cache or read, checked and decoded; valid
  // while mu_ is held.
  Status GetBlock(const Entry& e, const Block** out) REQUIRES(mu_);
  // Fills b's pages from its decompressed bytes in b->raw.
  Status DecodeBlock(Block* b) REQUIRES(mu_);

  std::unique_ptr<File> file_;  // set once while opening
  const std::string path_;
  const Timestamp start_;
  const uint64_t blocks_end_;  // where the index starts
  const uint64_t file_size_;
  uint32_t replaced_id_ = 0;
  uint32_t version_ = 3;  // of the blocks: 3, or 1 and 2 (page blocks)
  std::string recovered_;
  bool verify_checksums_ = true;
  uint64_t pages_ = 0;
  std::vector<Entry> entries_;  // ascending by id; immutable after Open
  Mutex mu_;
  compress::ZstdCodec zstd_ GUARDED_BY(mu_);
  std::vector<std::unique_ptr<Block>> cache_ GUARDED_BY(mu_);  // newest last
};

}  // namespace sundial::storage
