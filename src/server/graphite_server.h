// GraphiteServer: the optional Graphite plaintext listener (graphite.port).
//
// Every connection on its port speaks Graphite's line protocol for its whole
// life (no protocol sniffing: a path may start with any byte). It reuses
// the telnet connection machinery (net::LineConnection), so the same
// connection limits, idle timeout, line-length limit and read-buffer bounds
// apply, and its points go through the shared write path (protocol
// graphite). Carbon sends nothing back on this protocol and neither does
// Sundial: bad lines are counted (ingest.points.rejected{protocol=graphite})
// and logged at most once per kLogInterval with the count since.
//
// Thread-safety: Start() and Stop() from the server's control thread; the
// sessions run on the I/O threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ingest_service.h"
#include "options.h"
#include "sundial/net/io_context_pool.h"
#include "sundial/net/line_connection.h"
#include "sundial/net/listener.h"
#include "sundial/net/session.h"

namespace sundial::server {

class GraphiteServer : public net::SessionFactory {
 public:
  static constexpr std::chrono::seconds kLogInterval{10};

  // Everything is borrowed and must outlive the server. REQUIRES:
  // options.graphite.port != 0.
  GraphiteServer(const Options& options, IngestService* ingest, net::IoContextPool* pool,
                 net::ConnectionManager* connections);
  GraphiteServer(const GraphiteServer&) = delete;
  GraphiteServer& operator=(const GraphiteServer&) = delete;

  // Binds and starts accepting. IOError (with the address) on failure.
  Status Start();
  // Stops accepting; open connections are stopped by the ConnectionManager.
  void Stop();
  uint16_t port() const { return listener_.port(); }

  void StartSession(net::Protocol protocol, asio::ip::tcp::socket socket,
                    std::string_view first_bytes) override;

  // Records bad lines of one read; logs them unless a log line was written
  // within kLogInterval. Thread-safe.
  void NoteBadLines(size_t count, std::string_view first_error);

 private:
  static net::ListenerOptions MakeListenerOptions(const Options& options);

  IngestService* const ingest_;
  const net::LineOptions line_options_;
  net::ConnectionManager* const connections_;
  net::Listener listener_;
  std::atomic<int64_t> last_log_ms_{0};
  std::atomic<uint64_t> unlogged_bad_lines_{0};
};

}  // namespace sundial::server
