// SampleIterator: reads the points of one series in time order.
//
// Why: pages, head chunks, merged views and query stages all stream points
// through this one shape, decoding lazily; nothing materialises a whole page
// or partition into a vector.
//
// Usage:
//   while (it->Next()) use(it->t(), it->v());
//   if (!it->status().ok()) ...   // read status only after exhaustion
// or, many points per call (the same points, without a call per point):
//   while (size_t n = it->NextBatch(ts, vs, kMax)) use(ts, vs, n);
//
// Thread-safety: an iterator is used by one thread at a time.
#pragma once

#include <cstddef>

#include "sundial/common/status.h"
#include "sundial/common/types.h"

namespace sundial {

class SampleIterator {
 public:
  SampleIterator() = default;
  SampleIterator(const SampleIterator&) = delete;
  SampleIterator& operator=(const SampleIterator&) = delete;
  virtual ~SampleIterator() = default;

  // Advances to the next point. Returns false when exhausted or on error.
  virtual bool Next() = 0;
  // Advances to the first point with timestamp >= t (possibly the current
  // one). Returns false when there is none or on error.
  virtual bool Seek(Timestamp t) = 0;
  // REQUIRES: the last Next()/Seek() returned true.
  virtual Timestamp t() const = 0;
  virtual Value v() const = 0;
  // Ok, or the error that ended iteration (e.g. Corruption).
  virtual Status status() const = 0;
  // Bytes of decoded points the iterator holds now beyond its own fixed
  // size (a run of a compacted block), for a query's memory limit. It
  // changes only in Next(), NextBatch() and Seek().
  virtual size_t HeldBytes() const { return 0; }

  // Reads the points that up to max calls of Next() would, into t[0..n)
  // and v[0..n), and returns n: fewer than max only when the iterator is
  // exhausted (or failed), 0 then. After n > 0, t() and v() are the last
  // point written, as after the n-th Next(). Mixes freely with Next() and
  // Seek(). The default calls Next(); iterators that hold decoded points
  // in arrays override it to copy them in bulk.
  virtual size_t NextBatch(Timestamp* t, Value* v, size_t max) {
    size_t n = 0;
    while (n < max && Next()) {
      t[n] = this->t();
      v[n] = this->v();
      ++n;
    }
    return n;
  }
};

}  // namespace sundial
