// TelnetSession: the telnet-style command dispatcher of one connection.
//
// Walks the complete lines of a read buffer once: runs of `put` lines go to
// the connection's PutLineSink in one call; a line whose first token is not
// a command and that looks like InfluxDB line protocol goes to the sink's
// HandleLineProtocol (stored before the next read); every other line is a command
// (opentsdb-compat.md §2.7): version, help, exit, dropcaches, stats,
// rollup, histogram, diediedie (only when enabled), and anything else is
// answered "unknown command: <cmd>.  Try `help'.". Commands are
// case-sensitive; lines end in '\n' or "\r\n".
//
// Backpressure: before a command, if the connection's unsent replies are
// congested (a client pipelining `stats` and reading nothing), it stops
// with kPause; put lines are handled regardless (their error replies are
// dropped beyond the cap, opentsdb-compat.md §2.8).
#pragma once

#include <memory>
#include <string_view>

#include "put_line_sink.h"
#include "service_context.h"
#include "sundial/net/line_handler.h"

namespace sundial::server {

class TelnetSession : public net::LineHandler {
 public:
  // ctx is borrowed and must outlive the session.
  TelnetSession(ServiceContext* ctx, std::unique_ptr<PutLineSink> put_sink);

  Action HandleLines(std::string_view lines, net::ReplyBuffer* reply, size_t* consumed) override;

 private:
  // HandleLines without the final flush of buffered line protocol.
  Action HandleLinesUnflushed(std::string_view lines, net::ReplyBuffer* reply, size_t* consumed);
  // One non-put line, without its line end.
  Action HandleCommand(std::string_view line, net::ReplyBuffer* reply);

  ServiceContext* const ctx_;
  const std::unique_ptr<PutLineSink> put_sink_;
};

// The telnet `stats` reply: `tsd.<name> <epoch_s> <value> [tags] host=<h>`
// lines, as OpenTSDB prints them.
std::string TelnetStatsReply(const ServiceContext& ctx);

}  // namespace sundial::server
