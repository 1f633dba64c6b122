// UpstreamConnection: one blocking TCP connection to an upstream, used by
// one relay thread only. Every call is bounded by a timeout (poll), so a
// slow or silent upstream never holds the thread for longer than that.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "http_response.h"
#include "telnet_reply.h"
#include "sundial/common/status.h"

namespace sundial::relay {

class UpstreamConnection {
 public:
  UpstreamConnection(std::string host, uint16_t port);
  ~UpstreamConnection();
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  bool is_open() const { return fd_ >= 0; }
  void Close();
  // Closes with a reset (RST) instead of a FIN, dropping unsent bytes, so
  // the upstream sees an error rather than an end of stream and never
  // takes a cut-off last line for a complete one.
  void Abort();

  // Sends telnet lines and returns OK once the upstream's TCP acknowledged
  // every byte of them (the kernel's send queue is empty, SIOCOUTQ == 0),
  // waiting up to the timeout. Before writing, a connection the upstream
  // has closed (or that has bytes waiting, e.g. error replies) is noticed:
  // replies are discarded (the first line kept in *reply), and a closed
  // one is reopened. On any failure the connection is aborted (Abort()) and
  // Unavailable/DeadlineExceeded returned: the caller sends the lines again.
  // Without SIOCOUTQ (not Linux, or an emulator lacking it) a complete
  // write counts as acknowledged.
  Status SendLines(std::string_view lines, std::chrono::milliseconds timeout, std::string* reply);

  // Sends telnet lines followed by a `version` command and returns OK once
  // the reply to that command has arrived (ack=version), waiting up to the
  // timeout: then the upstream process has read every line. *replies holds
  // what the upstream answered meanwhile (TelnetReplyParser: its error
  // lines). Replies waiting before the write are read first and counted
  // with this batch. On a timeout, a closed connection or a reply that is
  // not telnet, the connection is aborted (Abort()) and
  // Unavailable/DeadlineExceeded/Corruption returned: the caller sends the
  // lines again. *replies stays valid until the next call.
  Status SendLinesAwaitVersion(std::string_view lines, std::chrono::milliseconds timeout,
                               const TelnetReplyParser** replies);

  // POSTs body to path (request target) with extra header lines (each
  // ending in CRLF) and reads the response into *out. Network errors and
  // malformed responses return a non-OK Status (the connection is closed).
  Status Post(const std::string& path, const std::string& headers, std::string_view body,
              std::chrono::milliseconds timeout, HttpResponse* out);

 private:
  using Clock = std::chrono::steady_clock;
  Status Connect(Clock::time_point deadline);
  // flags are added to send()'s (MSG_MORE: more follows at once).
  Status WriteAll(std::string_view data, Clock::time_point deadline, int flags = 0);
  // Waits until fd_ is readable (or writable); DeadlineExceeded at deadline.
  Status Wait(bool write, Clock::time_point deadline);
  // Reads what is waiting without blocking. False if the peer closed or
  // the connection failed.
  bool DrainWaiting(std::string* reply);
  // Waits until the peer's TCP acknowledged every byte written (see
  // SendLines); replies that arrive meanwhile go to *reply.
  Status WaitAcknowledged(Clock::time_point deadline, std::string* reply);
  // Reads what is waiting without blocking into replies_. Unavailable if
  // the peer closed, Corruption if it sent no telnet reply.
  Status ReadReplies();
  // Reads replies until the version reply is complete (SendLinesAwaitVersion).
  Status WaitVersionReply(Clock::time_point deadline);

  const std::string host_;
  const uint16_t port_;
  const std::string host_header_;
  int fd_ = -1;
  std::string in_;  // response bytes read, not yet parsed
  TelnetReplyParser replies_;  // telnet replies (ack=version)
};

}  // namespace sundial::relay
