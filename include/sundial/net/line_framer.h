// LineFramer: turns a byte stream into runs of complete lines, in place.
//
// Why: the telnet ingest path must not allocate or copy per line. The framer
// owns one buffer; the connection reads straight into WriteSpace(), and
// CompleteLines() hands out every complete line of the buffer at once as a
// single view. Only the trailing partial line is moved (to the front) after
// the lines were handled.
//
// Framing rules (opentsdb-compat.md §2.1):
//  * A line ends with '\n'. A preceding '\r' stays in the line; the line
//    handler strips it. CompleteLines() is empty or ends with '\n'.
//  * The limit applies to the partial line that is buffered while waiting
//    for its '\n': once more than max_line_length bytes are buffered without
//    a newline, Commit() reports kLineTooLong and the connection must close.
//    As in OpenTSDB, a longer line that arrives whole in one read is not
//    rejected here.
//
// Memory: starts at read_size bytes and grows while a long partial line is
// buffered, up to max_line_length + read_size. A stream that keeps filling
// the whole room (a busy sender) doubles read_size, up to max_read_size:
// fewer, larger reads cost less per byte, while an idle or slow connection
// keeps the small buffer. The buffer never shrinks.
//
// Thread-safety: none; one framer per connection.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

namespace sundial::net {

class LineFramer {
 public:
  enum class Result { kOk, kLineTooLong };

  // REQUIRES: max_line_length > 0, read_size > 0. A max_read_size below
  // read_size means read_size (no growth).
  LineFramer(size_t max_line_length, size_t read_size, size_t max_read_size = 0);

  LineFramer(const LineFramer&) = delete;
  LineFramer& operator=(const LineFramer&) = delete;

  // Where the next read should write, and how much room there is. Room is
  // > 0 whenever CompleteLines() is empty, i.e. after Construction and after
  // ConsumeCompleteLines(). Valid until the next non-const call.
  char* write_data() { return buf_.get() + end_; }
  size_t write_size() const { return cap_ - end_ - 1; }

  // Records that n bytes were written at write_data(). When it returns with
  // CompleteLines() non-empty, the caller handles them and calls
  // ConsumeCompleteLines() before the next read.
  // REQUIRES: n <= write_size().
  Result Commit(size_t n);

  // Copies bytes in, growing the buffer as needed (for bytes read before the
  // framer existed, and for tests), then Commit()s them.
  Result Append(std::string_view bytes);

  // Every complete line buffered, as one view ending in '\n' (or empty).
  // Valid until the next non-const call.
  std::string_view CompleteLines() const {
    return std::string_view(buf_.get(), lines_end_);
  }

  // Drops the complete lines and keeps the partial one.
  void ConsumeCompleteLines();

  // Drops the first n bytes of CompleteLines() only (a handler that stopped
  // part way); the rest stay complete lines.
  // REQUIRES: n <= CompleteLines().size(), and n is 0 or just after a '\n'.
  void ConsumeLines(size_t n);

  // At end of stream: turns a buffered partial line into a complete one by
  // adding the missing '\n'. Returns false if there was none.
  bool FinishPartialLine();

  // Bytes buffered after the last complete line.
  size_t partial_size() const { return end_ - lines_end_; }

  // The current read size (see Memory above).
  size_t read_size() const { return read_size_; }

 private:
  void MakeRoom();

  const size_t max_line_;
  size_t read_size_;
  const size_t max_read_size_;
  std::unique_ptr<char[]> buf_;
  size_t cap_ = 0;        // capacity; always > end_: one spare byte for '\n'
  size_t lines_end_ = 0;  // one past the last '\n' in [0, end_)
  size_t end_ = 0;        // bytes buffered
};

}  // namespace sundial::net
