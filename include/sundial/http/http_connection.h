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
// Thread-safety: everything runs on the connection's strand; Stop() and the
// Responders it hands out may be used from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>
#include <asio/strand.hpp>

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
  std::chrono::milliseconds idle_timeout{0};  // 0 = none
  CorsOptions cors;
};

class ResponderImpl;

class HttpConnection : public net::Session, public std::enable_shared_from_this<HttpConnection> {
 public:
  // router and manager are borrowed and must outlive the connection.
  HttpConnection(asio::ip::tcp::socket socket, const Router* router, const HttpOptions& options,
                 net::ConnectionManager* manager);
  ~HttpConnection() override;

  // Registers with the manager, parses first_bytes, starts reading.
  void Start(std::string_view first_bytes);
  void Stop() override;

 private:
  friend class ResponderImpl;
  using Strand = asio::strand<asio::ip::tcp::socket::executor_type>;

  // One reply slot per request, in request order.
  struct Slot {
    uint64_t seq = 0;
    std::string out;                                     // bytes ready to write
    std::vector<std::function<void(bool)>> callbacks;    // run when `out` is written
    bool done = false;        // no more bytes will come
    bool close_after = false; // close the connection once written
    bool chunked = false;     // streaming with chunked encoding
    bool head_written = false;
    bool accepts_gzip = false;
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
  Slot* FindSlot(uint64_t seq);

  // Called on the strand by ResponderImpl.
  void OnSend(uint64_t seq, Reply reply);
  void OnStartChunked(uint64_t seq, Reply head);
  void OnChunk(uint64_t seq, std::string data, std::function<void(bool)> on_written);
  void OnFinish(uint64_t seq, bool abort);
  // Appends one piece of a streamed body (compressed, chunk-framed).
  void AppendBodyPiece(Slot* slot, std::string_view data);

  void DoWrite();
  void OnWritten(const std::error_code& ec);
  void AppendHead(const Reply& reply, Slot* slot, bool gzip, bool chunked);
  // Half-closes and discards input for a moment so the client gets the
  // last reply before the socket closes (no RST with unread data).
  void CloseGracefully();
  void Close();

  asio::ip::tcp::socket socket_;
  Strand strand_;
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
  std::string spare_;  // an empty buffer with capacity, for the next reply
  std::vector<std::function<void(bool)>> writing_callbacks_;
  bool reading_ = false;
  bool read_done_ = false;   // no more requests will be read
  bool write_in_flight_ = false;
  bool stopping_ = false;   // server shutdown: finish in-flight replies, then close
  bool lingering_ = false;  // half-closed, discarding input until Close()
  bool closed_ = false;
  std::atomic<bool> cancelled_{false};  // read by responders on any thread
};

}  // namespace sundial::http
