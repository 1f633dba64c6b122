// Listener: accepts TCP connections, sniffs the protocol from the first
// byte, and hands each connection to a SessionFactory.
//
// Protocol detection (opentsdb-compat.md §1): if the first byte of a
// connection is an ASCII capital letter 'A'..'Z' the connection speaks
// HTTP/1.x for its whole life, otherwise the telnet-style line protocol.
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

// The byte rule above.
inline Protocol DetectProtocol(char first_byte) {
  return (first_byte >= 'A' && first_byte <= 'Z') ? Protocol::kHttp : Protocol::kLine;
}

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
