// QueryTracker: the running and recently completed /api/query requests, for
// /api/stats/query (OpenTSDB's QueryStats: {"running":[...],
// "completed":[...]}).
//
// Why a responder decorator: a query is answered on the I/O thread (small
// ones), on a worker, streamed or not. Wrapping its responder sees the
// end of every path without touching them: the first Send() or Finish()
// (or the responder's destruction, for a dropped reply) completes the entry.
// Registering costs one mutex lock and a map insert; completing, one lock
// and a move into a bounded ring (kMaxCompleted entries).
//
// Thread-safety: all methods are thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include "sundial/common/mutex.h"
#include "sundial/http/request.h"
#include "sundial/http/responder.h"

namespace sundial::server {

class QueryTracker {
 public:
  static constexpr size_t kMaxCompleted = 256;
  static constexpr size_t kMaxQueryText = 4096;  // bytes of the query kept

  QueryTracker() = default;
  QueryTracker(const QueryTracker&) = delete;
  QueryTracker& operator=(const QueryTracker&) = delete;

  // Registers req as running and returns a responder that completes the
  // entry when the reply is sent. The tracker must outlive the returned
  // responder.
  http::ResponderPtr Track(const http::Request& req, http::ResponderPtr inner);

  // {"running":[...],"completed":[...]} newest first.
  std::string Json() const;

  // Called by the tracking responder.
  void Complete(uint64_t id, int status);

 private:
  struct Entry {
    std::string query;   // body, or target for GET
    std::string remote;  // X-Forwarded-For / X-Real-IP, else ""
    std::string request_id;
    int64_t start_ms = 0;  // wall clock
    std::chrono::steady_clock::time_point start;
    double elapsed_ms = 0;  // completed entries
    int status = 0;
  };
  static void AppendEntry(const Entry& e, bool running, std::string* out);

  mutable Mutex mu_;
  uint64_t next_id_ GUARDED_BY(mu_) = 1;
  std::map<uint64_t, Entry> running_ GUARDED_BY(mu_);
  std::deque<Entry> completed_ GUARDED_BY(mu_);
  uint64_t executed_ GUARDED_BY(mu_) = 0;
};

}  // namespace sundial::server
