// LineConnection: one telnet-style line-protocol connection.
//
// Reads into a LineFramer (64 KiB reads by default), passes every complete
// line of each read to its LineHandler in one call, and writes replies back
// without ever making reading wait for writing (opentsdb-compat.md §2.8):
// reply bytes queue up to a cap and error text beyond it is dropped.
//
// Backpressure: reading pauses when the handler stops at a command because
// the unsent replies are congested (LineHandler::kPause) and resumes once
// the client has taken the bytes in flight; a client that takes nothing for
// write_timeout while paused is closed. Put lines never pause reading.
//
// Closes the connection on end of stream, on a read error, on a line longer
// than the limit (silently, as OpenTSDB does), when the handler says kClose
// (after the pending reply is written), on idle timeout, on write timeout
// while paused, and on Stop().
//
// Thread-safety: all work runs on the socket's io_context (one thread, see
// IoContextPool). Stop() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <asio/ip/tcp.hpp>

#include "sundial/net/idle_timer.h"
#include "sundial/net/line_framer.h"
#include "sundial/net/line_handler.h"
#include "sundial/net/session.h"

namespace sundial::net {

struct LineOptions {
  size_t max_line_length = 64 * 1024;
  size_t read_size = 64 * 1024;  // the first reads
  size_t max_read_size = 512 * 1024;  // a busy connection's (LineFramer)
  size_t max_pending_reply = 256 * 1024;  // reply bytes queued per connection
  std::chrono::milliseconds idle_timeout{0};  // 0 = none
  // While reading is paused for unsent replies: how long the client may
  // take no reply bytes before it is closed (0 = no limit).
  std::chrono::milliseconds write_timeout{0};
};

class LineConnection : public Session, public std::enable_shared_from_this<LineConnection> {
 public:
  // manager is borrowed and must outlive the connection.
  LineConnection(asio::ip::tcp::socket socket, std::unique_ptr<LineHandler> handler,
                 const LineOptions& options, ConnectionManager* manager);
  ~LineConnection() override;

  // Registers with the manager (the listener reserved the slot), handles
  // first_bytes, starts reading.
  void Start(std::string_view first_bytes);
  void Stop() override;

 private:
  void DoRead();
  void OnRead(const std::error_code& ec, size_t n);
  // Hands complete lines to the handler; false when the connection closes.
  bool Dispatch();
  void DoWrite();
  void WriteSome();
  void OnWritten(const std::error_code& ec, size_t n);
  bool OnTimer(IdleTimer::Clock::time_point now, bool idle);
  void Close();

  asio::ip::tcp::socket socket_;
  const std::unique_ptr<LineHandler> handler_;
  const LineOptions options_;
  ConnectionManager* const manager_;
  LineFramer framer_;
  ReplyBuffer reply_;
  std::string writing_;  // bytes of the write in flight
  size_t written_ = 0;   // of writing_
  IdleTimer idle_;
  IdleTimer::Clock::time_point write_progress_;  // last bytes taken by the client
  bool write_in_flight_ = false;
  bool paused_ = false;  // the handler stopped at a command: not reading
  bool close_after_write_ = false;
  bool closed_ = false;
};

}  // namespace sundial::net
