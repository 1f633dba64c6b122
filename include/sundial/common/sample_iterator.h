// SampleIterator: reads the points of one series in time order.
//
// Why: pages, head chunks, merged views and query stages all stream points
// through this one shape, decoding lazily; nothing materialises a whole page
// or partition into a vector.
//
// Usage:
//   while (it->Next()) use(it->t(), it->v());
//   if (!it->status().ok()) ...   // read status only after exhaustion
//
// Thread-safety: an iterator is used by one thread at a time.
#pragma once

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
};

}  // namespace sundial
