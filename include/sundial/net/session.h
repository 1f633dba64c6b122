// Session and ConnectionManager: the set of live connections of a server.
//
// Why: on shutdown every open connection must be closed, and the connection
// limits need a count of what is open, in total and per client address. A
// connection (of any protocol) implements Session and registers itself here
// for its lifetime; the manager only holds weak references, so it never
// keeps a connection alive.
//
// Limits (checked when the listener admits a new connection):
//  * max_per_address: connections from one client address. A client that
//    opens hundreds of connections (e.g. half-sent requests) is refused more
//    while other addresses are still served. Note that a reverse proxy or a
//    NAT gateway concentrates many clients on one address.
//  * max_connections: all connections. When it is reached, the connection
//    that has been idle longest (no request or line in progress, no reply
//    pending) is stopped to make room; only if none is idle is the new
//    connection refused. So idle keep-alive connections cannot lock out
//    new clients, and busy ones are never cut for a newcomer.
//
// Thread-safety: ConnectionManager is safe to use from any thread. A
// session's idle mark is written by its own I/O thread and read here.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <unordered_map>

#include <asio/ip/address.hpp>

#include "sundial/common/mutex.h"

namespace sundial::net {

class Session {
 public:
  virtual ~Session() = default;
  // Asks the connection to close soon. Safe from any thread, idempotent.
  // Data already received may still be handled before the socket closes.
  virtual void Stop() = 0;

 protected:
  // The connection reports whether it is idle (may be stopped to make room
  // for a new one) from its own I/O thread. Both are cheap when the state
  // does not change (one relaxed load).
  void MarkIdle() {
    if (idle_since_.load(std::memory_order_relaxed) == 0) {
      int64_t expected = 0;
      idle_since_.compare_exchange_strong(expected, NowNs(), std::memory_order_relaxed);
    }
  }
  void MarkBusy() {
    int64_t v = idle_since_.load(std::memory_order_relaxed);
    if (v > 0) idle_since_.compare_exchange_strong(v, 0, std::memory_order_relaxed);
  }

 private:
  friend class ConnectionManager;
  static int64_t NowNs() {
    const int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
    return ns > 0 ? ns : 1;
  }

  // Steady-clock ns since the connection became idle; 0 while busy; -1 once
  // the manager chose it for eviction (it is never chosen twice).
  std::atomic<int64_t> idle_since_{0};
};

struct ConnectionLimits {
  size_t max_connections = 0;  // 0 = no limit
  size_t max_per_address = 0;  // 0 = no limit
};

class ConnectionManager {
 public:
  enum class AddResult { kAdded, kRefusedAddress, kRefusedFull, kStopped };

  explicit ConnectionManager(const ConnectionLimits& limits) : limits_(limits) {}
  // Only a total limit (0 = none).
  explicit ConnectionManager(size_t max_connections)
      : ConnectionManager(ConnectionLimits{max_connections, 0}) {}

  ConnectionManager(const ConnectionManager&) = delete;
  ConnectionManager& operator=(const ConnectionManager&) = delete;

  // Registers a new connection from `address`. With enforce_limit set (a
  // newly accepted connection) the limits above apply: it may stop the
  // longest-idle connection, or register nothing and return kRefused*.
  // Without it (a connection taking over a slot the listener reserved) only
  // kStopped, after StopAll(), refuses.
  AddResult Add(const std::shared_ptr<Session>& session, const asio::ip::address& address,
                bool enforce_limit) EXCLUDES(mu_);
  // Unregisters; call from the session's destructor or when it closes.
  void Remove(const Session* session) EXCLUDES(mu_);
  // Stops every registered connection and refuses new ones from now on.
  void StopAll() EXCLUDES(mu_);

  size_t size() const EXCLUDES(mu_);
  uint64_t total_accepted() const EXCLUDES(mu_);
  uint64_t total_refused() const EXCLUDES(mu_);
  uint64_t total_evicted() const EXCLUDES(mu_);
  // Connections registered from address.
  size_t count_for(const asio::ip::address& address) const EXCLUDES(mu_);

 private:
  struct Entry {
    std::weak_ptr<Session> session;
    asio::ip::address address;
    bool evicting = false;  // stopped to make room, still closing
  };

  // The longest-idle live session, claimed for eviction; null if none.
  std::shared_ptr<Session> ClaimOldestIdle() REQUIRES(mu_);

  const ConnectionLimits limits_;
  mutable Mutex mu_;
  std::unordered_map<const Session*, Entry> sessions_ GUARDED_BY(mu_);
  std::map<asio::ip::address, size_t> per_address_ GUARDED_BY(mu_);
  size_t evicting_ GUARDED_BY(mu_) = 0;  // entries with evicting set
  bool stopped_ GUARDED_BY(mu_) = false;
  uint64_t total_ GUARDED_BY(mu_) = 0;
  uint64_t refused_ GUARDED_BY(mu_) = 0;
  uint64_t evicted_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::net
