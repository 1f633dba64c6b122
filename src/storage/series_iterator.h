// SeriesIterator: the points of one series in [start, end], in time order,
// merged from sealed pages, pages waiting for the disk, the head page and
// the out-of-order page, with the last write winning on equal timestamps.
//
// Why: every source is a page with a known time range. Sources are opened
// lazily in order of their first timestamp, only when the merge reaches
// them, and each is decoded point by point; in-order pages never overlap,
// so normally one or two sources are open at a time.
//
// Priority on equal timestamps: in-order sources (0) lose to out-of-order
// ones, and later-written out-of-order pages get higher numbers.
//
// Thread-safety: one thread at a time. The iterator keeps the partitions it
// reads open; it must not outlive the engine.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "storage/partition.h"
#include "storage/partition_set.h"
#include "sundial/common/mutex.h"
#include "sundial/common/sample_iterator.h"
#include "sundial/compress/page_decoder.h"

namespace sundial::storage {

// Counts damaged pages found while reading and keeps a description of the
// first kMaxMessages distinct ones, for the engine's warnings.
// Thread-safety: all methods are thread-safe.
class DamageLog {
 public:
  static constexpr size_t kMaxMessages = 100;
  void Report(const Status& s) EXCLUDES(mu_);
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // Descriptions not taken yet.
  std::vector<std::string> Take() EXCLUDES(mu_);

 private:
  Mutex mu_;
  std::vector<std::string> seen_ GUARDED_BY(mu_);  // every description so far
  size_t taken_ GUARDED_BY(mu_) = 0;               // how many Take() returned
  std::atomic<uint64_t> count_{0};
};

class SeriesIterator final : public SampleIterator {
 public:
  struct Source {
    Timestamp min_t = 0;
    Timestamp max_t = 0;
    uint32_t priority = 0;
    Partition* part = nullptr;  // set for a sealed page; pinned by the iterator
    PageRef ref;
    std::string bytes;  // an in-memory page otherwise
    bool arrival_order = false;  // bytes is an open out-of-order page
    // Deleted ranges [first, second] (tombstones.h): their points are skipped.
    std::vector<std::pair<Timestamp, Timestamp>> deleted;
  };

  // damage (borrowed, may be null) hears of damaged pages, which are
  // skipped. pins keep the partitions of the sources open while the
  // iterator lives. pages_read (borrowed, may be null) counts the sealed
  // pages read from files. kept (borrowed, may be null; it must outlive
  // the iterator) holds page-file pages read ahead (Partition::ReadPage).
  SeriesIterator(SeriesId series, Timestamp start, Timestamp end, std::vector<Source> sources,
                 std::vector<PartitionRef> pins, DamageLog* damage,
                 std::atomic<uint64_t>* pages_read = nullptr, const ReadAhead* kept = nullptr);

  bool Next() override;
  bool Seek(Timestamp t) override;
  Timestamp t() const override { return t_; }
  Value v() const override { return v_; }
  Status status() const override { return status_; }
  size_t HeldBytes() const override;
  // Copies runs of points straight out of a page's decoded batch while
  // one page is open and no other source starts before them (the usual
  // case); falls back to Next() around page and source boundaries.
  size_t NextBatch(Timestamp* t, Value* v, size_t max) override;

 private:
  // One open source, its points in batches ts[0, n), vs[0, n), the
  // current one at pos. A page is decoded kBatch points at a time into
  // tbuf/vbuf; points held whole (a columnar cold run, or the sorted copy
  // of an arrival-order page or of a page with deleted ranges) are one
  // batch, read where they are.
  struct Cursor {
    static constexpr uint32_t kBatch = 64;
    Cursor() = default;
    Cursor(const Cursor&) = delete;  // ts/vs may point into the cursor
    Cursor& operator=(const Cursor&) = delete;
    uint32_t priority = 0;
    std::string buf;
    compress::PageDecoder dec;
    std::vector<Timestamp> held_t;  // points held whole, in time order
    std::vector<Value> held_v;
    bool use_held = false;
    bool held_given = false;     // held_t/held_v were the batch already
    bool increasing = false;     // the batch's timestamps increase strictly
    uint32_t pos = 0;            // current point
    uint32_t n = 0;              // points in the batch
    const Timestamp* ts = tbuf;
    const Value* vs = vbuf;
    Timestamp tbuf[kBatch];
    Value vbuf[kBatch];
    Timestamp t() const { return ts[pos]; }
    Value v() const { return vs[pos]; }
    // Loads the next batch and moves to its first point. False when
    // exhausted.
    bool Fill();
    // Moves to the first point >= lower. False when exhausted.
    bool SeekTo(Timestamp lower);
    bool Advance() { return ++pos < n || Fill(); }
    Status status() const { return use_held ? Status::OK() : dec.status(); }
  };
  // Opens source i; adds a cursor if it has a point in range.
  void Open(Source* src);
  void Retire(Cursor* c);

  const SeriesId series_;
  const Timestamp end_;
  const std::vector<PartitionRef> pins_;
  std::vector<Source> sources_;  // sorted by min_t
  size_t next_ = 0;              // first source not opened yet
  std::vector<std::unique_ptr<Cursor>> active_;
  Timestamp lower_;              // no point below this is returned any more
  Timestamp t_ = 0;
  Value v_;
  bool done_ = false;
  bool positioned_ = false;
  Status status_;
  DamageLog* const damage_;
  std::atomic<uint64_t>* const pages_read_;
  const ReadAhead* const kept_;
};

}  // namespace sundial::storage
