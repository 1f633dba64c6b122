// LineHandler and ReplyBuffer: the seam between a line-protocol connection
// (net/) and the commands behind it (server/).
//
// Why bulk: the connection passes every complete line of a read buffer in
// one call, so the hot ingest path costs one virtual call per read, not per
// line, and the lines are never copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sundial::net {

// Reply bytes waiting to be written to a line-protocol client, with a cap.
//
// Why a cap: clients pipeline thousands of lines and may read nothing back
// for minutes (opentsdb-compat.md §2.8). Writing error replies must never
// block reading, so once the cap is reached further error text is dropped
// and counted. Replies that must get through (version, help) use Append too:
// they are dropped only when the client has not read anything for a long
// time.
//
// Thread-safety: none; owned by one connection.
class ReplyBuffer {
 public:
  explicit ReplyBuffer(size_t limit) : limit_(limit) {}

  // Appends text if it fits entirely within the cap; otherwise drops it and
  // returns false.
  bool Append(std::string_view text) {
    if (data_.size() + text.size() > limit_) {
      ++dropped_;
      return false;
    }
    data_.append(text);
    return true;
  }

  bool empty() const { return data_.empty(); }
  size_t size() const { return data_.size(); }
  size_t limit() const { return limit_; }
  // Replies dropped because of the cap, since construction.
  uint64_t dropped() const { return dropped_; }

  // The connection's side: takes the buffered bytes, leaving it empty.
  void TakeInto(std::string* out) {
    out->clear();
    out->swap(data_);
  }
  // Lowers the room left by bytes that are queued elsewhere (being written).
  void set_limit(size_t limit) { limit_ = limit; }

 private:
  size_t limit_;
  std::string data_;
  uint64_t dropped_ = 0;
};

// Handles the lines of one line-protocol connection. One instance per
// connection, created by the server; called on that connection's I/O thread
// only, one call at a time.
class LineHandler {
 public:
  enum class Action {
    kContinue,  // keep reading
    kClose,     // write what is in the reply buffer, then close
  };

  virtual ~LineHandler() = default;

  // `lines` holds one or more complete lines, each ending in '\n' (possibly
  // "\r\n"), in arrival order. Replies go to *reply. Must not block on
  // anything but the WAL append (DESIGN.md §3): the next read of this
  // connection waits for the call to return.
  virtual Action HandleLines(std::string_view lines, ReplyBuffer* reply) = 0;
};

}  // namespace sundial::net
