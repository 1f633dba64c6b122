// ServiceContext: what request handlers and telnet commands may use.
//
// Owned by Server; every pointer stays valid until the server has stopped
// accepting and closed its connections. Handlers borrow it.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "options.h"
#include "sundial/http/router.h"
#include "sundial/net/session.h"
#include "sundial/query/annotations.h"
#include "sundial/query/bucket_cache.h"
#include "sundial/relay/relay.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/meta_store.h"
#include "sundial/storage/storage.h"
#include "worker_pool.h"

namespace sundial::server {

class IngestService;
class RemoteWriteService;
class QueryTracker;

// The endpoints that send data points out, for ServerStats::points_out.
enum class PointsOut : uint8_t { kQuery = 0, kLast, kExp, kGexp, kExport };
inline constexpr size_t kPointsOutCount = 5;
// "query", "last", "exp", "gexp", "export": the tag value in stats.
const char* PointsOutName(PointsOut e);

// Counters of the network layer and the query endpoints, for stats.
// Relaxed atomics.
struct ServerStats {
  std::atomic<uint64_t> telnet_commands{0};   // non-put telnet lines handled
  std::atomic<uint64_t> telnet_unknown{0};    // unknown telnet commands
  // Data points sent in query answers, per endpoint: added once per
  // request with the count the query reported (not per point).
  std::array<std::atomic<uint64_t>, kPointsOutCount> points_out{};
  int64_t start_time_s = 0;                   // set once at start

  void AddPointsOut(PointsOut e, uint64_t n) {
    if (n != 0) points_out[static_cast<size_t>(e)].fetch_add(n, std::memory_order_relaxed);
  }
};

struct ServiceContext {
  const Options* options = nullptr;
  storage::Storage* storage = nullptr;        // null while no storage is open
  const rollup::RollupStore* rollups = nullptr;  // null when rollups are off
  query::BucketCache* cache = nullptr;          // null when the bucket cache is off
  const relay::Relay* relay = nullptr;        // null when no relay target is configured
  IngestService* ingest = nullptr;            // the write path (ingest_service.h)
  RemoteWriteService* remote_write = nullptr; // /api/v1/write (remote_write_service.h)
  WorkerPool* workers = nullptr;              // for work that must leave I/O threads
  // Jobs of workers one query may add to its own thread: min(query.threads,
  // CPU cores) - 1 (QueryLanes).
  size_t query_helpers = 0;
  ServerStats* stats = nullptr;
  const net::ConnectionManager* connections = nullptr;
  const http::Router* router = nullptr;
  storage::MetaStore* meta = nullptr;          // uid/ts meta; null while storage is not open
  query::AnnotationStore* annotations = nullptr;  // over meta; null likewise
  QueryTracker* queries = nullptr;            // /api/query requests for /api/stats/query
  std::function<void()> request_shutdown;     // asks the server to stop (thread-safe)
};

}  // namespace sundial::server
