// TelnetReplyParser: reads what an OpenTSDB-style telnet upstream answers
// to a batch of `put` lines followed by a `version` command (a target with
// ack=version).
//
// Why: a `put` that succeeds gets no reply, so the only way to learn that an
// upstream *process* has read a batch is to ask a question after it and wait
// for the answer. Replies come back in line order, so once the reply to
// `version` has arrived, every line before it has been handled, and every
// error line about the batch has arrived before it.
//
// Wire format (opentsdb-compat.md §2.2, §2.7; every line ends in '\n', a
// '\r' before it is ignored):
//   error line     `put: <reason>: <text>`, one per refused point, e.g.
//                  `put: illegal argument: invalid tag: x`; storage failures
//                  are `put: HBase error: <text>` and `put: Please throttle
//                  writes: <text>` (OpenTSDB writes those asynchronously, so
//                  one may also arrive after the version reply)
//   version reply  two lines, written at once by both OpenTSDB 2.4 and
//                  sundiald:
//                    `net.opentsdb.tools <version> built at revision <rev> (<MINT|MODIFIED>)`
//                    `Built on <date> by <user>@<host>:<repo>`
// The reply ends with a `Built on ` line that directly follows a
// `net.opentsdb.tools ` line. Every other line counts as an error line.
//
// Thread-safety: none; owned by one connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sundial::relay {

class TelnetReplyParser {
 public:
  // A reply line longer than this means the peer is not a telnet upstream.
  static constexpr size_t kMaxLine = 64 * 1024;
  // first_error() keeps at most this many characters of the first line.
  static constexpr size_t kMaxErrorText = 200;

  // Starts a new batch: clears the counts and the completion, keeping any
  // bytes received after the previous version reply (a late error line is
  // counted with the batch during which it is read).
  void StartBatch();
  // Forgets everything, partial lines included (the connection was reset).
  void Reset();

  // Takes bytes received and parses every complete line, stopping after
  // the line that ends the version reply (later bytes stay buffered for
  // the next batch). False if a line exceeds kMaxLine.
  bool Feed(std::string_view bytes);

  // Whether the reply to this batch's `version` command has ended.
  bool complete() const { return complete_; }
  // Error lines read since StartBatch().
  uint64_t error_lines() const { return error_lines_; }
  // Of which storage failures (HBase error, Please throttle writes): the
  // upstream could not keep points it accepted, so the batch is sent again.
  uint64_t storage_errors() const { return storage_errors_; }
  // The first error line since StartBatch() (at most kMaxErrorText chars).
  const std::string& first_error() const { return first_error_; }

 private:
  // Parses complete lines in buf_ until the reply is complete.
  void ParseLines();
  void Line(std::string_view line);

  std::string buf_;   // bytes received, not yet parsed
  bool header_ = false;    // the previous line began a version reply
  bool complete_ = false;
  uint64_t error_lines_ = 0;
  uint64_t storage_errors_ = 0;
  std::string first_error_;
};

}  // namespace sundial::relay
