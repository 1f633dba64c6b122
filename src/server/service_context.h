// ServiceContext: what request handlers and telnet commands may use.
//
// Owned by Server; every pointer stays valid until the server has stopped
// accepting and closed its connections. Handlers borrow it.
#pragma once

#include <atomic>
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

// Counters of the network layer, for stats. Relaxed atomics.
struct ServerStats {
  std::atomic<uint64_t> telnet_commands{0};   // non-put telnet lines handled
  std::atomic<uint64_t> telnet_unknown{0};    // unknown telnet commands
  int64_t start_time_s = 0;                   // set once at start
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
  ServerStats* stats = nullptr;
  const net::ConnectionManager* connections = nullptr;
  const http::Router* router = nullptr;
  storage::MetaStore* meta = nullptr;          // uid/ts meta; null while storage is not open
  query::AnnotationStore* annotations = nullptr;  // over meta; null likewise
  QueryTracker* queries = nullptr;            // /api/query requests for /api/stats/query
  std::function<void()> request_shutdown;     // asks the server to stop (thread-safe)
};

}  // namespace sundial::server
