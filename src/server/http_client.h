// A small blocking HTTP/1.1 and line-protocol client for the command-line
// tools (`sundiald export`, `sundiald import`, `sundiald --health`).
//
// Hosts are numeric IPv4, bracketed IPv6 or names (host_resolver.h: a
// bounded lookup, "localhost" is 127.0.0.1). Every wait is bounded by a
// timeout; errors are Status values naming the peer.
//
// Thread-safety: a TcpClient is used by one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include <asio/ip/tcp.hpp>

#include "host_resolver.h"
#include "sundial/common/status.h"

namespace sundial::server {

struct HttpUrl {
  asio::ip::tcp::endpoint endpoint;
  std::string host;  // as written, for the Host header
  std::string path;  // "/" when the URL has none
};

// Parses "http://HOST[:PORT][/PATH]" (port 80 by default) and resolves
// HOST: a numeric address at once, a name with ResolveHost (at most
// resolve_timeout). InvalidArgument for a malformed URL; NotFound
// ("unknown host ...") or DeadlineExceeded when the name does not resolve.
Status ParseHttpUrl(std::string_view url, HttpUrl* out,
                    std::chrono::milliseconds resolve_timeout = kResolveTimeout);
// The command-line tools' name for ParseHttpUrl with the default timeout.
Status ParseToolUrl(std::string_view url, HttpUrl* out);

// Waits for poll(2) `events` on fd until deadline (retrying on EINTR);
// false on timeout or error.
bool WaitForFd(int fd, short events, std::chrono::steady_clock::time_point deadline);

// One TCP connection with bounded waits.
class TcpClient {
 public:
  TcpClient() = default;
  ~TcpClient();
  TcpClient(const TcpClient&) = delete;
  TcpClient& operator=(const TcpClient&) = delete;

  Status Connect(const asio::ip::tcp::endpoint& to, std::chrono::milliseconds timeout);
  // Sends all of data, waiting at most `timeout` for the peer to take any.
  Status SendAll(std::string_view data, std::chrono::milliseconds timeout);
  // Appends what arrives to *out (at least one byte). IOError on timeout or
  // error; NotFound when the peer closed the connection.
  Status Receive(std::string* out, std::chrono::milliseconds timeout);
  void Close();
  const std::string& peer() const { return peer_; }
  int fd() const { return fd_; }  // -1 when not connected

 private:
  int fd_ = -1;
  std::string peer_;
};

// Decodes a chunked transfer-encoded body incrementally (RFC 9112 §7.1;
// chunk extensions are ignored, trailers are not read: decoding ends at the
// last chunk's size line). Memory: at most one chunk header line
// (kMaxLineBytes) plus the bytes of one Feed() are held.
class ChunkedDecoder {
 public:
  static constexpr size_t kMaxLineBytes = 4096;
  // Consumes data, passing payload bytes to on_body. If on_body returns
  // false, sets *stop and returns true at once. False with *error set on
  // malformed framing (the decoder is then unusable).
  bool Feed(std::string_view data, const std::function<bool(std::string_view)>& on_body,
            bool* stop, std::string* error);
  // The last (zero-size) chunk was seen.
  bool done() const { return done_; }

 private:
  std::string pending_;
  uint64_t left_ = 0;       // payload bytes left in the current chunk
  bool need_crlf_ = false;  // a chunk's payload ended; its CRLF is next
  bool done_ = false;
};

// GETs url.path + path_and_query from url's server with Connection: close.
// The decoded body (Content-Length, chunked or until close) goes to on_body
// piece by piece; on_body returns false to stop early (the call then
// returns OK). *status gets the HTTP status code. timeout bounds
// each wait for the server, not the whole transfer.
Status HttpGet(const HttpUrl& url, std::string_view path_and_query,
               std::chrono::milliseconds timeout, int* status,
               const std::function<bool(std::string_view)>& on_body);

// The same, collecting the body (at most max_bytes, else ResourceExhausted).
Status HttpGetBody(const HttpUrl& url, std::string_view path_and_query,
                   std::chrono::milliseconds timeout, size_t max_bytes, int* status,
                   std::string* body);

// Percent-encodes a query-string value.
std::string UrlEncode(std::string_view s);

}  // namespace sundial::server
