#include "sundial/compress/page_iterator.h"

namespace sundial::compress {

void PageIterator::Reset(std::string_view page) {
  dec_.Reset(page);
  status_ = dec_.status();
  cur_ = kNone;
  n_ = 0;
  done_ = false;
}

bool PageIterator::Fill() {
  n_ = done_ ? 0 : dec_.Decode(ts_, vs_, kBatch);
  if (n_ == 0) {
    cur_ = kNone;
    status_ = dec_.status();
    return false;
  }
  cur_ = 0;
  return true;
}

bool PageIterator::Seek(Timestamp t) {
  if (cur_ < n_ && ts_[cur_] >= t) return true;
  if (!status_.ok() || t > dec_.header().max_t) {
    done_ = true;
    n_ = 0;
    cur_ = kNone;
    return false;
  }
  for (;;) {
    while (++cur_ < n_) {
      if (ts_[cur_] >= t) return true;
    }
    if (!Fill()) return false;
    if (ts_[0] >= t) return true;
  }
}

}  // namespace sundial::compress
