// Listener: accepts TCP connections, sniffs the protocol from the first
// byte, and hands each connection to a SessionFactory.
//
// Protocol detection (opentsdb-compat.md §1, refined): a connection speaks
// HTTP/1.x for its whole life if it starts with an HTTP request line, that
// is an HTTP method (GET HEAD POST PUT DELETE OPTIONS PATCH TRACE CONNECT),
// one space and a request target starting with '/' or '*' (origin or
// asterisk form; absolute URIs, for proxies, are not served). Otherwise it speaks the telnet-style line protocol, so
// InfluxDB line protocol whose measurement starts with a capital letter
// (`POSTAL_codes,zip=1 n=1`, `GETTER value=1`) is not taken for HTTP. The
// listener reads until it can decide (at most 9 bytes).
//
// Each new connection is admitted by the ConnectionManager's limits (per
// address, total, evicting the longest-idle connection when full); one that
// is refused is closed at once. Connections that send nothing within the
// idle timeout are closed.
//
// Thread-safety: Start() and Stop() may be called from any thread; the
// factory is called on the I/O thread that owns the new connection. The
// pool must keep running until Stop() returned.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <asio/ip/tcp.hpp>
#include <asio/steady_timer.hpp>

#include "sundial/common/mutex.h"
#include "sundial/common/status.h"
#include "sundial/net/io_context_pool.h"
#include "sundial/net/session.h"

namespace sundial::net {

enum class Protocol { kHttp, kLine };

// The rule above, applied to the bytes received so far. Returns false if
// they are a prefix of a request line that more bytes could complete or
// refute; otherwise true with *protocol set. REQUIRES: !first_bytes.empty().
bool DetectProtocol(std::string_view first_bytes, Protocol* protocol);

class SessionFactory {
 public:
  virtual ~SessionFactory() = default;
  // Takes over a connection whose protocol was just detected. first_bytes
  // are the bytes read so far (at least one). The new session must register
  // itself with the manager (enforce_limit = false: its slot was reserved
  // by the listener). Called on the socket's I/O thread.
  virtual void StartSession(Protocol protocol, asio::ip::tcp::socket socket,
                            std::string_view first_bytes) = 0;
};

struct ListenerOptions {
  std::string bind_address = "0.0.0.0";
  uint16_t port = 4242;  // 0 picks a free port (see port())
  std::chrono::milliseconds idle_timeout{0};  // 0 = none
  size_t first_read_size = 64 * 1024;
};

class Listener {
 public:
  // Borrows everything; all must outlive the Listener.
  Listener(const ListenerOptions& options, IoContextPool* pool, ConnectionManager* manager,
           SessionFactory* factory);
  ~Listener();

  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds and starts accepting. IOError (with the address) on failure.
  Status Start() EXCLUDES(mu_);
  // Stops accepting new connections. Idempotent; safe from any thread.
  void Stop() EXCLUDES(mu_);
  // The bound port (useful with port 0). Valid after a successful Start().
  uint16_t port() const { return port_; }

 private:
  // Opens, binds and listens on the acceptor.
  Status Bind() EXCLUDES(mu_);
  void DoAccept() EXCLUDES(mu_);

  const ListenerOptions options_;
  IoContextPool* const pool_;
  ConnectionManager* const manager_;
  SessionFactory* const factory_;
  Mutex mu_;  // serialises use of acceptor_ and retry_timer_
  asio::ip::tcp::acceptor acceptor_ GUARDED_BY(mu_);
  asio::steady_timer retry_timer_ GUARDED_BY(mu_);  // after a failed accept
  uint16_t port_ = 0;
};

}  // namespace sundial::net
