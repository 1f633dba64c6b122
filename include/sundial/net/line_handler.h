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
// and counted. Replies that must get through (version, stats, help) are
// different: a client that pipelines commands and reads nothing would make
// the server compute replies only to drop them. So a handler stops at a
// command while the buffer is congested() and the connection reads no more
// until the client has taken the bytes in flight (LineHandler::kPause).
//
// The bytes being written (in flight) count against the cap too, so one
// connection holds at most `limit` reply bytes.
//
// Thread-safety: none; owned by one connection.
class ReplyBuffer {
 public:
  explicit ReplyBuffer(size_t limit) : limit_(limit) {}

  // Appends text if it fits entirely within the cap; otherwise drops it and
  // returns false.
  bool Append(std::string_view text) {
    if (unsent() + text.size() > limit_) {
      ++dropped_;
      return false;
    }
    data_.append(text);
    return true;
  }

  bool empty() const { return data_.empty(); }
  size_t size() const { return data_.size(); }
  size_t limit() const { return limit_; }
  // Reply bytes not yet taken by the client: queued plus in flight.
  size_t unsent() const { return data_.size() + in_flight_; }
  // At least half the cap is unsent: a handler should not start a command
  // (see LineHandler::kPause).
  bool congested() const { return unsent() * 2 >= limit_; }
  // Replies dropped because of the cap, since construction.
  uint64_t dropped() const { return dropped_; }

  // The connection's side: takes the buffered bytes, leaving it empty.
  void TakeInto(std::string* out) {
    out->clear();
    out->swap(data_);
  }
  // Bytes taken earlier that are still being written.
  void set_in_flight(size_t n) { in_flight_ = n; }

 private:
  const size_t limit_;
  size_t in_flight_ = 0;
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
    kPause,     // stopped at *consumed because reply->congested(): call
                // again with the rest once the client has read the replies
  };

  virtual ~LineHandler() = default;

  // `lines` holds one or more complete lines, each ending in '\n' (possibly
  // "\r\n"), in arrival order. Replies go to *reply. *consumed is set to the
  // bytes of `lines` handled: all of them, except with kPause (then a line
  // boundary). Must not block on anything but the WAL append (DESIGN.md §3):
  // the next read of this connection waits for the call to return.
  virtual Action HandleLines(std::string_view lines, ReplyBuffer* reply, size_t* consumed) = 0;
};

}  // namespace sundial::net
