// Session and ConnectionManager: the set of live connections of a server.
//
// Why: on shutdown every open connection must be closed, and the connection
// limit needs a count of what is open. A connection (of any protocol)
// implements Session and registers itself here for its lifetime; the
// manager only holds weak references, so it never keeps a connection alive.
//
// Thread-safety: ConnectionManager is safe to use from any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_map>

#include "sundial/common/mutex.h"

namespace sundial::net {

class Session {
 public:
  virtual ~Session() = default;
  // Asks the connection to close soon. Safe from any thread, idempotent.
  // Data already received may still be handled before the socket closes.
  virtual void Stop() = 0;
};

class ConnectionManager {
 public:
  // max_connections == 0 means no limit.
  explicit ConnectionManager(size_t max_connections) : max_(max_connections) {}

  ConnectionManager(const ConnectionManager&) = delete;
  ConnectionManager& operator=(const ConnectionManager&) = delete;

  // Registers a new connection. Returns false (and registers nothing) when
  // enforce_limit is set and the limit is reached, or after StopAll().
  bool Add(const std::shared_ptr<Session>& session, bool enforce_limit);
  // Unregisters; call from the session's destructor or when it closes.
  void Remove(const Session* session);
  // Stops every registered connection and refuses new ones from now on.
  void StopAll();

  size_t size() const;
  uint64_t total_accepted() const;

 private:
  const size_t max_;
  mutable Mutex mu_;
  std::unordered_map<const Session*, std::weak_ptr<Session>> sessions_ GUARDED_BY(mu_);
  bool stopped_ GUARDED_BY(mu_) = false;
  uint64_t total_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::net
