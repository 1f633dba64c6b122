#include "telnet_session.h"

#include <unistd.h>

#include <cassert>
#include <chrono>
#include <string>

#include <spdlog/spdlog.h>

#include "stats_report.h"
#include "version.h"

namespace sundial::server {

namespace {

std::string_view FirstToken(std::string_view line) {
  return line.substr(0, line.find(' '));
}

// The commands of opentsdb-compat.md §2.7; a line starting with one is
// never taken for line protocol.
bool IsTelnetCommand(std::string_view cmd) {
  static constexpr std::string_view kCommands[] = {"put",  "version", "help",      "exit",
                                                   "dropcaches", "stats", "rollup", "histogram",
                                                   "diediedie"};
  for (std::string_view c : kCommands) {
    if (cmd == c) return true;
  }
  return false;
}

size_t CountTokens(std::string_view line) {
  size_t n = 1;
  for (char c : line) n += (c == ' ');
  return n;
}


}  // namespace

TelnetSession::TelnetSession(ServiceContext* ctx, std::unique_ptr<PutLineSink> put_sink)
    : ctx_(ctx), put_sink_(std::move(put_sink)) {}

net::LineHandler::Action TelnetSession::HandleLines(std::string_view lines,
                                                    net::ReplyBuffer* reply, size_t* consumed) {
  const Action action = HandleLinesUnflushed(lines, reply, consumed);
  put_sink_->FlushLineProtocol(reply);  // before the next read (DESIGN.md §3)
  return action;
}

net::LineHandler::Action TelnetSession::HandleLinesUnflushed(std::string_view lines,
                                                             net::ReplyBuffer* reply,
                                                             size_t* consumed) {
  size_t pos = 0;
  *consumed = lines.size();
  while (pos < lines.size()) {
    const std::string_view rest = lines.substr(pos);
    if (IsPutLine(rest)) {
      const size_t used = put_sink_->HandlePutLines(rest, reply);
      assert(used > 0 && used <= rest.size());
      pos += used > 0 ? used : rest.find('\n') + 1;  // never loop forever
      continue;
    }
    const size_t nl = rest.find('\n');  // complete lines: always found
    std::string_view line = rest.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    // Line protocol, like put lines, is handled even when replies back up.
    if (!IsTelnetCommand(FirstToken(line)) && put_sink_->HandleLineProtocol(line, reply)) {
      pos += nl + 1;
      continue;
    }
    if (reply->congested()) {
      *consumed = pos;
      return Action::kPause;
    }
    pos += nl + 1;
    if (HandleCommand(line, reply) == Action::kClose) return Action::kClose;
  }
  return Action::kContinue;
}

net::LineHandler::Action TelnetSession::HandleCommand(std::string_view line,
                                                      net::ReplyBuffer* reply) {
  ctx_->stats->telnet_commands.fetch_add(1, std::memory_order_relaxed);
  const std::string_view cmd = FirstToken(line);
  if (cmd == "version") {
    reply->Append(TelnetVersionReply());
  } else if (cmd == "help") {
    reply->Append(ctx_->options->telnet.diediedie
                      ? "available commands: stats dropcaches version exit help put rollup "
                        "histogram diediedie \n"
                      : "available commands: stats dropcaches version exit help put rollup "
                        "histogram \n");
  } else if (cmd == "exit") {
    return Action::kClose;
  } else if (cmd == "dropcaches") {
    reply->Append("Caches dropped.\n");
  } else if (cmd == "stats") {
    reply->Append(TelnetStatsReply(*ctx_));
  } else if (cmd == "rollup") {
    const size_t tokens = CountTokens(line);
    if (tokens < 6) {
      reply->Append("rollup: illegal argument: not enough arguments (need least 7, got " +
                    std::to_string(tokens - 1) + ")\n");
    } else {
      reply->Append("rollup: illegal argument: No rollup or aggregations were configured\n");
    }
  } else if (cmd == "histogram") {
    reply->Append(
        "histogram: illegal argument: Histogram storage has not been enabled. Check the "
        "'tsd.core.histograms.config' configuration.\n");
  } else if (cmd == "diediedie" && ctx_->options->telnet.diediedie) {
    reply->Append("Cleaning up and exiting now.\n");
    spdlog::warn("shutdown requested by the telnet diediedie command");
    if (ctx_->request_shutdown) ctx_->request_shutdown();
  } else {
    ctx_->stats->telnet_unknown.fetch_add(1, std::memory_order_relaxed);
    std::string msg = "unknown command: ";
    msg.append(cmd);
    msg += ".  Try `help'.\n";
    reply->Append(msg);
  }
  return Action::kContinue;
}

std::string TelnetStatsReply(const ServiceContext& ctx) {
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  return StatsTelnet(CollectStats(ctx), now, LocalHostName());
}

}  // namespace sundial::server
