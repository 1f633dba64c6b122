#include "sundial/compress/page_iterator.h"

namespace sundial::compress {

void PageIterator::Reset(std::string_view page) {
  dec_.Reset(page);
  status_ = dec_.status();
  cur_ = kNone;
  next_ = n_ = 0;
  done_ = false;
}

bool PageIterator::Fill() {
  n_ = done_ ? 0 : dec_.Decode(ts_, vs_, kBatch);
  if (n_ == 0) {
    next_ = 0;
    cur_ = kNone;
    status_ = dec_.status();
    return false;
  }
  cur_ = 0;
  next_ = 1;
  return true;
}

bool PageIterator::Seek(Timestamp t) {
  if (cur_ != kNone && ts_[cur_] >= t) return true;
  if (!status_.ok() || t > dec_.header().max_t) {
    done_ = true;
    next_ = n_ = 0;
    cur_ = kNone;
    return false;
  }
  for (;;) {
    for (; next_ < n_; ++next_) {
      if (ts_[next_] >= t) {
        cur_ = next_++;
        return true;
      }
    }
    if (!Fill()) return false;
    if (ts_[0] >= t) return true;
  }
}

}  // namespace sundial::compress
