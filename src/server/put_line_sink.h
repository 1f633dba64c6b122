// PutLineSink: where the telnet `put` lines of one connection go.
//
// Why a seam: server/ frames and dispatches telnet commands; parsing and
// storing points is ingest's job. The telnet session hands a sink every
// run of consecutive `put` lines at once (no copy, no per-line call), so
// the sink can parse them and append them to storage as one batch.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>

#include "sundial/ingest/telnet_put_handler.h"
#include "sundial/net/line_handler.h"

namespace sundial::server {

struct ServiceContext;

// True if the line's command (its first space-separated token) is exactly
// "put". `line` may be followed by more lines.
inline bool IsPutLine(std::string_view line) { return ingest::IsPutCommand(line); }

// One per telnet connection (so it may keep per-connection caches without
// locks); called on that connection's I/O thread only.
class PutLineSink {
 public:
  virtual ~PutLineSink() = default;

  // `lines` starts with a put line (IsPutLine) and holds complete lines,
  // each ending in '\n' (maybe "\r\n"). Handles the put lines from the start
  // up to, not including, the first line that is not a put line, and
  // returns how many bytes it handled (> 0, at a line boundary). Error
  // replies, one line each (opentsdb-compat.md §2.2), go to *reply; a full
  // reply buffer drops them. Points must reach the WAL before it returns
  // (DESIGN.md §3: before the next read of the connection).
  virtual size_t HandlePutLines(std::string_view lines, net::ReplyBuffer* reply) = 0;

  // A line (without its line end) that is neither a put line nor a telnet
  // command. If it looks like InfluxDB line protocol
  // (ingest::LooksLikeLineProtocol) the sink parses it, buffers its points,
  // appends an error line ("influx: unable to parse '<line>': <reason>") to
  // *reply if it is bad, and returns true; otherwise returns false and the
  // session answers "unknown command".
  virtual bool HandleLineProtocol(std::string_view /*line*/, net::ReplyBuffer* /*reply*/) {
    return false;
  }
  // Appends the points HandleLineProtocol buffered to storage. The session
  // calls it before it returns from a read buffer (before the next read).
  virtual void FlushLineProtocol(net::ReplyBuffer* /*reply*/) {}
};

class PutLineSinkFactory {
 public:
  virtual ~PutLineSinkFactory() = default;
  // A sink for a new connection. Called on that connection's I/O thread.
  virtual std::unique_ptr<PutLineSink> NewSink() = 0;
};

// The factory the server uses (put_wiring.cc). Until ingest is wired in it
// answers every put line with an error.
std::unique_ptr<PutLineSinkFactory> NewPutLineSinkFactory(ServiceContext* ctx);

}  // namespace sundial::server
