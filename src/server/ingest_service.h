// IngestService: the write path's shared state in a running server: the
// ingest options, the validation rules, the counters, and a pool of
// /api/put handlers.
//
// Why a pool for HTTP and not one handler per connection: HTTP handlers are
// routed without a connection identity. A handler keeps a series cache that
// is worth reusing, so requests borrow one from the pool (a mutex per
// request, not per point) and give it back. Telnet connections own their
// handler (PutLineSink, put_wiring.cc).
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <memory>
#include <vector>

#include "sundial/common/mutex.h"
#include "sundial/ingest/http_put_handler.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/ingest/ingest_stats.h"
#include "sundial/ingest/line_protocol_handler.h"
#include "sundial/ingest/point_rules.h"
#include "sundial/ingest/point_writer.h"
#include "sundial/ingest/telnet_put_handler.h"
#include "sundial/storage/storage.h"

namespace sundial::server {

// Idle handlers of one kind, kept for reuse: at most kMaxIdle, more
// concurrent requests than that just build (and drop) extra ones.
template <typename Handler>
class HandlerPool {
 public:
  static constexpr size_t kMaxIdle = 16;
  // An idle handler, or null when there is none.
  std::unique_ptr<Handler> Take() {
    MutexLock lock(&mu_);
    if (idle_.empty()) return nullptr;
    std::unique_ptr<Handler> h = std::move(idle_.back());
    idle_.pop_back();
    return h;
  }
  void Give(std::unique_ptr<Handler> handler) {
    MutexLock lock(&mu_);
    if (idle_.size() < kMaxIdle) idle_.push_back(std::move(handler));
  }

 private:
  Mutex mu_;
  std::vector<std::unique_ptr<Handler>> idle_ GUARDED_BY(mu_);
};

class IngestService {
 public:
  // storage may be null (no storage open): puts are then refused.
  IngestService(const ingest::IngestOptions& options, storage::Storage* storage);
  IngestService(const IngestService&) = delete;
  IngestService& operator=(const IngestService&) = delete;

  // A handler for one telnet connection. REQUIRES: storage() != nullptr.
  std::unique_ptr<ingest::TelnetPutHandler> NewTelnetHandler();

  // A write path for one connection or handler of another protocol
  // (point_writer.h). REQUIRES: storage() != nullptr.
  std::unique_ptr<ingest::PointWriter> NewWriter(
      ingest::Protocol protocol, ingest::TagPolicy tag_policy,
      ingest::NamePolicy name_policy = ingest::NamePolicy::kOpenTsdb);

  // Borrows an HTTP put handler; give it back with Release().
  // REQUIRES: storage() != nullptr.
  std::unique_ptr<ingest::HttpPutHandler> AcquireHttpHandler();
  void Release(std::unique_ptr<ingest::HttpPutHandler> handler);

  // The same for HTTP line-protocol writes (/write, /api/v2/write).
  std::unique_ptr<ingest::LineProtocolHandler> AcquireLineProtocolHandler();
  void Release(std::unique_ptr<ingest::LineProtocolHandler> handler);
  // A line-protocol handler for one telnet connection.
  std::unique_ptr<ingest::LineProtocolHandler> NewLineProtocolHandler();

  storage::Storage* storage() const { return storage_; }
  const ingest::IngestOptions& options() const { return options_; }
  const ingest::PointRules& rules() const { return rules_; }
  ingest::IngestStats* stats() { return &stats_; }
  const ingest::IngestStats& stats() const { return stats_; }

 private:
  const ingest::IngestOptions options_;
  const ingest::PointRules rules_;
  storage::Storage* const storage_;
  ingest::IngestStats stats_;
  HandlerPool<ingest::HttpPutHandler> http_pool_;
  HandlerPool<ingest::LineProtocolHandler> influx_pool_;
};

}  // namespace sundial::server
