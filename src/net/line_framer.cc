#include "sundial/net/line_framer.h"

#include <cassert>
#include <cstring>

namespace sundial::net {

namespace {

// The last '\n' in [p, p + n), or nullptr.
const char* LastNewline(const char* p, size_t n) {
  return static_cast<const char*>(memrchr(p, '\n', n));
}

}  // namespace

LineFramer::LineFramer(size_t max_line_length, size_t read_size, size_t max_read_size)
    : max_line_(max_line_length),
      read_size_(read_size),
      max_read_size_(max_read_size > read_size ? max_read_size : read_size) {
  assert(max_line_length > 0 && read_size > 0);
  cap_ = read_size_ + 1;
  buf_.reset(new char[cap_]);
}

LineFramer::Result LineFramer::Commit(size_t n) {
  assert(n <= write_size());
  // The read filled all the room: the sender is ahead, read more at once.
  if (n == write_size() && read_size_ < max_read_size_) {
    read_size_ = read_size_ * 2 < max_read_size_ ? read_size_ * 2 : max_read_size_;
  }
  const size_t old_end = end_;
  end_ += n;
  if (const char* nl = LastNewline(buf_.get() + old_end, n)) {
    lines_end_ = static_cast<size_t>(nl - buf_.get()) + 1;
  }
  if (partial_size() > max_line_) return Result::kLineTooLong;
  if (lines_end_ == 0) MakeRoom();  // nothing to consume: grow if full
  return Result::kOk;
}

LineFramer::Result LineFramer::Append(std::string_view bytes) {
  if (bytes.size() > write_size()) {
    const size_t new_cap = end_ + bytes.size() + 1;
    std::unique_ptr<char[]> bigger(new char[new_cap]);
    memcpy(bigger.get(), buf_.get(), end_);
    buf_ = std::move(bigger);
    cap_ = new_cap;
  }
  memcpy(write_data(), bytes.data(), bytes.size());
  return Commit(bytes.size());
}

void LineFramer::ConsumeCompleteLines() {
  const size_t partial = partial_size();
  if (lines_end_ > 0 && partial > 0) memmove(buf_.get(), buf_.get() + lines_end_, partial);
  end_ = partial;
  lines_end_ = 0;
  MakeRoom();
}

void LineFramer::ConsumeLines(size_t n) {
  assert(n <= lines_end_ && (n == 0 || buf_[n - 1] == '\n'));
  if (n == lines_end_) return ConsumeCompleteLines();
  if (n == 0) return;
  memmove(buf_.get(), buf_.get() + n, end_ - n);
  end_ -= n;
  lines_end_ -= n;
}

void LineFramer::MakeRoom() {
  // Keep at least half a read of room, plus the spare byte; grow only while
  // a long partial line is buffered, up to max_line + read_size. A partial
  // line is at most max_line bytes here, so the largest buffer always
  // leaves read_size bytes of room.
  const size_t want_free = read_size_ / 2 + 2;
  if (cap_ - end_ >= want_free) return;
  size_t new_cap = cap_ * 2;
  const size_t max_cap = max_line_ + read_size_ + 1;
  if (new_cap > max_cap) new_cap = max_cap;
  if (new_cap <= cap_) return;
  std::unique_ptr<char[]> bigger(new char[new_cap]);
  memcpy(bigger.get(), buf_.get(), end_);
  buf_ = std::move(bigger);
  cap_ = new_cap;
}

bool LineFramer::FinishPartialLine() {
  if (partial_size() == 0) return false;
  if (end_ == cap_) return false;  // cannot happen: one spare byte is kept
  buf_[end_++] = '\n';
  lines_end_ = end_;
  return true;
}

}  // namespace sundial::net
