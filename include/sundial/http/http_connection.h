// HttpConnection: one HTTP/1.x connection (keep-alive, pipelining).
//
// Requests are parsed one at a time (RequestParser) and routed (Router);
// replies go out strictly in request order, whatever thread and order the
// handlers answer in. At most max_in_flight requests are outstanding per
// connection; reading pauses beyond that. A malformed request is answered
// (400/405/413) and the connection is closed, as are connections whose
// request asked for it (Connection: close, HTTP/1.0 without keep-alive).
//
// Stop() (server shutdown) reads no further requests but still answers the
// ones in flight before closing.
//
// Hostile or stalled clients (each bound is an HttpOptions field):
//  * Receive deadline: a request must arrive whole within request_timeout
//    of its first byte, plus one second per body_min_rate bytes of body
//    received, so a slow trickle cannot hold the connection: the head has
//    request_timeout, and a body must keep up an average rate. Past it the
//    client gets 408 and the connection closes.
//  * Output cap: while more than max_unsent reply bytes wait for the client
//    (queued or being written), no new request is started. A streamed
//    reply's producer is told to wait while the bytes that go out before
//    its next piece (earlier replies' and its own) are over the cap: its
//    WriteChunk callback runs once they are back under it. So the reply
//    being written always makes progress, and a client that reads nothing
//    holds at most the cap plus one piece per reply in flight.
//  * Write timeout: a client that takes no bytes for write_timeout while a
//    reply is being written is closed.
//  * Idle timeout: a connection with no request in progress and nothing to
//    send, that saw no traffic for idle_timeout, is closed.
//
// Thread-safety: everything runs on the thread that runs the socket's
// io_context; Stop() and the Responders it hands out may be used from any
// thread. There is no strand: REQUIRES that the socket's io_context be run
// by exactly one thread (net::IoContextPool runs each of its contexts so),
// which is what keeps the connection's handlers from running concurrently.
// Calls from other threads are handed over through a queue of the
// connection's own (see Submit()), applied in the order they were made.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>

#include "sundial/common/mutex.h"
#include "sundial/http/body_codec.h"
#include "sundial/http/reply.h"
#include "sundial/http/request_parser.h"
#include "sundial/http/router.h"
#include "sundial/net/idle_timer.h"
#include "sundial/net/session.h"

namespace sundial::http {

// Cross-origin requests (opentsdb-compat.md §3.2), off while domains is
// empty. With domains set, a request carrying an allowed Origin ("*" allows
// any) gets Access-Control-Allow-{Origin,Methods,Headers} on its reply and
// an OPTIONS preflight is answered 200 with no body; a request from another
// origin is answered, as OpenTSDB does, 200 with an error body.
struct CorsOptions {
  std::vector<std::string> domains;  // compared case-insensitively
  std::string allow_headers;
};

struct HttpOptions {
  ParserLimits limits;
  size_t read_size = 64 * 1024;
  size_t max_in_flight = 16;           // pipelined requests awaiting a reply
  bool gzip_responses = true;          // honour Accept-Encoding: gzip
  size_t gzip_min_bytes = 1024;        // smaller bodies are sent as they are
  std::chrono::milliseconds idle_timeout{0};     // 0 = none
  std::chrono::milliseconds request_timeout{0};  // per request head; 0 = none
  uint64_t body_min_rate = 16 * 1024;            // bytes/s a body must average
  std::chrono::milliseconds write_timeout{0};    // 0 = none
  size_t max_unsent = 512 * 1024;                // output cap, bytes
  CorsOptions cors;
};

class ResponderImpl;

class HttpConnection : public net::Session, public std::enable_shared_from_this<HttpConnection> {
 public:
  // router and manager are borrowed and must outlive the connection.
  // REQUIRES: socket belongs to an io_context run by exactly one thread.
  HttpConnection(asio::ip::tcp::socket socket, const Router* router, const HttpOptions& options,
                 net::ConnectionManager* manager);
  ~HttpConnection() override;

  // Registers with the manager, parses first_bytes, starts reading.
  void Start(std::string_view first_bytes);
  void Stop() override;

 private:
  friend class ResponderImpl;
  using Executor = asio::io_context::executor_type;
  // The socket's executor is the io_context's own (not the type-erased
  // any_io_executor): every asynchronous operation is cheaper.
  using Socket = asio::basic_stream_socket<asio::ip::tcp, Executor>;

  // A Responder call (or Stop) made off the I/O thread, applied on it.
  struct Op {
    enum class Kind : uint8_t { kSend, kStartChunked, kChunk, kFinish, kAbort, kStop };
    Kind kind = Kind::kStop;
    uint64_t seq = 0;
    std::optional<Reply> reply;            // kSend, kStartChunked
    std::string data;                      // kChunk
    std::function<void(bool)> on_written;  // kChunk
  };

  // One reply slot per request, in request order.
  struct Slot {
    uint64_t seq = 0;
    std::string out;          // bytes ready to write
    // WriteChunk callbacks waiting for the output ahead of them (this
    // slot's and earlier slots') to fall under the cap.
    std::deque<std::function<void(bool)>> parked;
    bool done = false;        // no more bytes will come
    bool close_after = false; // close the connection once written
    bool chunked = false;     // streaming with chunked encoding
    bool head_written = false;
    bool accepts_gzip = false;
    bool head_only = false;   // a HEAD request: the reply has no body
    uint16_t http_minor = 1;
    std::string cors_origin;  // non-empty: add the CORS headers
    std::unique_ptr<GzipStream> gzip;  // compresses a streamed body
  };

  void DoRead();
  void OnRead(const std::error_code& ec, size_t n);
  // Parses requests from data until the in-flight limit or an error; keeps
  // what it could not parse yet in pending_. Then reads/writes as needed.
  void Feed(const char* data, size_t n);
  void ResumeParsing();
  size_t ParseSome(const char* data, size_t n);
  void AfterParse();
  void StartRequest(Request&& request);
  // Applies the CORS rules; true if the request was answered here.
  bool HandleCors(const Request& request, Slot* slot);
  void AnswerParseError();
  // Answers 408 (if nothing else is being answered) and closes.
  void AnswerTimeout();
  Slot* FindSlot(uint64_t seq);
  // Reply bytes not yet taken by the client, and whether that is over the cap.
  size_t Unsent() const;
  bool OutputFull() const { return Unsent() > options_.max_unsent; }
  // Unsent bytes up to and including slot i, in write order.
  size_t UnsentThrough(size_t i) const;
  // Runs the parked chunk callbacks whose slots are under the cap (all of
  // them, with false, when !ok).
  void RunParkedCallbacks(bool ok);
  // Marks the connection idle for eviction when nothing is in progress.
  void UpdateIdle();
  // The timer's wake: idle, receive deadline and write timeout checks.
  bool OnTimer(net::IdleTimer::Clock::time_point now, bool idle);
  // The time by which the request being received must be complete.
  net::IdleTimer::Clock::time_point RequestDue() const;

  // Takes over the socket's descriptor with the io_context's own executor.
  static Socket AdoptSocket(asio::ip::tcp::socket socket);

  // From ResponderImpl, on any thread. SubmitSend applies the reply at once
  // when called on the I/O thread with nothing queued (a handler that
  // answered at once); everything else goes through Submit.
  void SubmitSend(uint64_t seq, Reply reply);
  // Queues op and, unless a Drain is already on its way, posts one.
  void Submit(Op op);
  // The posted handler that runs Drain (see the .cc).
  class DrainTask;
  // On the I/O thread: applies queued ops in submission order until none
  // are left.
  void Drain();
  // Destroys the queued ops unapplied (their io_context is gone).
  void DropQueue();
  void Apply(Op* op);
  void OnStop();

  // Called on the I/O thread (through Apply or SubmitSend).
  void OnSend(uint64_t seq, Reply reply);
  void OnStartChunked(uint64_t seq, Reply head);
  void OnChunk(uint64_t seq, std::string data, std::function<void(bool)> on_written);
  void OnFinish(uint64_t seq, bool abort);
  // Appends one piece of a streamed body (compressed, chunk-framed).
  void AppendBodyPiece(Slot* slot, std::string_view data);

  void DoWrite();
  void WriteSome();
  void OnWritten(const std::error_code& ec, size_t n);
  void AppendHead(const Reply& reply, Slot* slot, bool gzip, bool chunked);
  // Half-closes and discards input for a moment so the client gets the
  // last reply before the socket closes (no RST with unread data).
  void CloseGracefully();
  void Close();

  Socket socket_;
  const Executor ex_;
  const Router* const router_;
  const HttpOptions options_;
  net::ConnectionManager* const manager_;
  RequestParser parser_;
  net::IdleTimer idle_;

  std::unique_ptr<char[]> read_buf_;  // options_.read_size bytes
  std::string pending_;  // received, not parsed yet (pipelined requests)
  asio::steady_timer linger_timer_;
  std::deque<Slot> slots_;
  uint64_t next_seq_ = 0;
  std::string writing_;
  size_t written_ = 0;  // bytes of writing_ the socket took
  std::string spare_;  // an empty buffer with capacity, for the next reply
  // Receive deadline of the request being parsed (request_timing_).
  net::IdleTimer::Clock::time_point request_start_;
  // Write progress as the timer last saw it.
  uint64_t write_events_ = 0;
  uint64_t write_events_seen_ = 0;
  net::IdleTimer::Clock::time_point write_stalled_since_;
  bool request_timing_ = false;
  bool reading_ = false;
  bool read_done_ = false;   // no more requests will be read
  bool write_in_flight_ = false;
  bool stopping_ = false;   // server shutdown: finish in-flight replies, then close
  bool lingering_ = false;  // half-closed, discarding input until Close()
  bool closed_ = false;
  std::atomic<bool> cancelled_{false};  // read by responders on any thread

  Mutex queue_mu_;
  std::vector<Op> queue_ GUARDED_BY(queue_mu_);  // submitted, not yet taken
  bool drain_posted_ GUARDED_BY(queue_mu_) = false;
  // Ops submitted and not yet applied (queued or being drained). Nonzero
  // keeps SubmitSend from applying a reply ahead of them.
  std::atomic<size_t> queued_{0};
  std::vector<Op> draining_;  // I/O thread only: the batch being applied
};

}  // namespace sundial::http
