// PageIterator: the points of one page (page_format.h) as a SampleIterator.
//
// Why: sealed pages are read straight out of memory-mapped files and the
// open head page straight out of its PageBuilder, without copying them. The
// iterator decodes a small batch of points at a time with a PageDecoder and
// hands them out one by one; it borrows the bytes and never reads outside
// them, whatever they contain: damage shows as a Corruption status once the
// points before it have been returned.
//
// Points come in the page's arrival order, which is time order for pages
// written in order; a page holding late points may go backwards. Seek(t)
// therefore advances to the next point (in page order) with timestamp >= t.
//
// Thread-safety: one thread at a time. Reusable through Reset().
#pragma once

#include <cstdint>
#include <string_view>

#include "sundial/common/sample_iterator.h"
#include "sundial/compress/page_decoder.h"
#include "sundial/compress/page_format.h"

namespace sundial::compress {

class PageIterator final : public SampleIterator {
 public:
  // An exhausted iterator with an ok status.
  PageIterator() = default;
  // Same as Reset(page).
  explicit PageIterator(std::string_view page) { Reset(page); }

  // Starts over on page, whose bytes must stay valid and unchanged while the
  // iterator uses them (it does not copy them). The page may be followed by
  // unused bytes. Validates the header: on error status() is Corruption and
  // Next() returns false.
  void Reset(std::string_view page);

  // One counter per point: a second one would make every Next() wait on a
  // store of the previous one.
  bool Next() override { return ++cur_ < n_ || Fill(); }
  bool Seek(Timestamp t) override;
  Timestamp t() const override { return ts_[cur_]; }
  Value v() const override { return vs_[cur_]; }
  Status status() const override { return status_; }

  // The validated header of the current page. REQUIRES: status().ok().
  const PageHeader& header() const { return dec_.header(); }

 private:
  static constexpr uint32_t kBatch = 64;
  static constexpr uint32_t kNone = ~uint32_t{0};

  // Decodes the next batch and moves to its first point.
  bool Fill();

  PageDecoder dec_;
  Status status_;
  uint32_t cur_ = kNone;  // index of the current point; >= n_: not positioned
  uint32_t n_ = 0;        // points in the batch
  bool done_ = false;     // nothing more to decode (Seek past the page's end)
  Timestamp ts_[kBatch];
  Value vs_[kBatch];
};

}  // namespace sundial::compress
