// Relay: forwards every point the WAL accepted to upstream clusters
// (OpenTSDB, VictoriaMetrics, remote_write and InfluxDB receivers), at
// least once and in WAL order, surviving restarts and long outages.
//
// Why WAL-based: the WAL already holds every accepted point in order, so
// the relay writes nothing twice. Each target keeps a position (a WAL
// record boundary) persisted in <data_dir>/relay/<target id>.pos after the
// upstream acknowledged everything before it; storage keeps the segments
// from the oldest persisted position on (WalRetention). A target whose
// unsent WAL exceeds its disk budget drops its oldest unsent segments,
// counts their points as dropped, and reports it; local ingest never waits.
//
// Delivery: a batch is acknowledged by a 2xx reply (HTTP protocols) or,
// for telnet (which has no replies), once the upstream's TCP acknowledged
// every byte of it (the kernel's send queue is empty); a connection that
// breaks or times out before that is reset and the batch sent again. So a
// telnet batch is lost only if the upstream process dies after its kernel
// acknowledged the bytes and before it stored them; with ack=version it is
// acknowledged by the reply to a `version` command sent after it
// (TelnetReplyParser), and one upstream error line per refused point
// counts it as rejected. Network errors,
// timeouts, 5xx, 408, 429 and 3xx are retried with capped exponential
// backoff, and so are 401, 403, 404, 405 and every other 4xx that points at
// the target (URL, credentials, proxy) rather than the data: the batch is
// kept. Only 400 and 422 (bad data) reject a batch, which is counted,
// reported and skipped; a 413 splits it in halves, and a single point still
// too large is rejected. After a restart the batch in flight is sent again
// (duplicates, never gaps).
//
// Threads: one per target, started by Start(), stopped by Stop(). Status()
// and OldestWalSegmentNeeded() are thread-safe.
//
// Position file format, version 1 (44 bytes, little-endian):
//   [0,8)   magic "SUNDRPS1"
//   [8,16)  fixed64 WAL segment     [16,24) fixed64 offset in it
//   [24,32) fixed64 points sent     [32,40) fixed64 points dropped
//   [40,44) fixed32 masked CRC-32C of [0,40)
// Written to a .tmp file and renamed over the old one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sundial/common/env.h"
#include "sundial/common/status.h"
#include "sundial/relay/target_spec.h"
#include "sundial/storage/storage.h"
#include "sundial/storage/wal_reader.h"

namespace sundial::relay {

enum class LogLevel { kInfo, kWarn, kError };

struct RelayOptions {
  std::vector<TargetSpec> targets;
  std::string dir;                           // where position files live
  uint64_t max_pending_bytes = 1ull << 30;   // per target, unless its URL says otherwise
  uint32_t batch_points = 1000;
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds max_backoff{30000};
  // Called from relay threads for events worth a log line. May be empty.
  std::function<void(LogLevel, const std::string&)> log;
};

// What /api/relay, /api/stats and /metrics show per target.
struct TargetStatus {
  std::string url;       // without credentials
  std::string id;
  std::string protocol;
  uint64_t points_sent = 0;      // acknowledged by the upstream (restarts included)
  uint64_t batches_sent = 0;
  uint64_t retries = 0;          // failed attempts that were retried
  uint64_t points_dropped = 0;   // lost to the disk budget (restarts included)
  uint64_t points_rejected = 0;  // refused as bad data (400, 422, a single point 413,
                                 // a telnet error line with ack=version)
  uint64_t pending_bytes = 0;    // WAL bytes not yet acknowledged
  uint64_t pending_points = 0;   // estimated from pending_bytes
  double lag_seconds = 0;        // age of the oldest unacknowledged data
  bool connected = false;        // the last attempt reached the upstream (got any reply)
  std::string last_error;        // empty if none yet
  int64_t last_error_ms = 0;     // wall clock of last_error
  storage::WalPosition position;  // acknowledged up to here
};

class Relay : public storage::WalRetention {
 public:
  // Loads the targets' positions from options.dir (created if missing).
  // Call before the storage opens, with the relay as its wal_retention, so
  // recovery keeps the segments the targets still need.
  static Status Open(const RelayOptions& options, Env* env, std::unique_ptr<Relay>* out);
  ~Relay() override;
  Relay(const Relay&) = delete;
  Relay& operator=(const Relay&) = delete;

  // Starts one thread per target reading storage's WAL. A target without a
  // position starts at the WAL's end. storage is borrowed; Stop() must run
  // before it closes.
  Status Start(storage::Storage* storage);
  // Stops the threads and persists positions. Idempotent.
  void Stop();

  std::vector<TargetStatus> TargetStatuses() const;
  uint64_t OldestWalSegmentNeeded() const override;

  class Target;  // one upstream (src/relay/target.h)

 private:
  Relay(const RelayOptions& options, Env* env);
  const RelayOptions options_;
  Env* const env_;
  std::vector<std::unique_ptr<Target>> targets_;
};

}  // namespace sundial::relay
