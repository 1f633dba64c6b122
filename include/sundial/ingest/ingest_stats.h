// IngestStats: counters of the write path, shared by every connection.
//
// Why atomics and not per-connection counters merged on read: there are few
// of them and each connection adds to them once per read buffer, not once per
// point, so contention is negligible. server/ owns one IngestStats and passes
// it to every handler; /api/stats, /metrics and telnet `stats` read it.
//
// Thread-safety: all members may be updated and read concurrently.
#pragma once

#include <atomic>
#include <cstdint>

namespace sundial::ingest {

struct IngestStats {
  std::atomic<uint64_t> telnet_puts{0};         // put lines received
  std::atomic<uint64_t> http_put_requests{0};   // POST /api/put requests
  std::atomic<uint64_t> http_points{0};         // points received over HTTP
  std::atomic<uint64_t> points_stored{0};       // acknowledged by storage
  std::atomic<uint64_t> invalid_values{0};      // number format errors
  std::atomic<uint64_t> illegal_arguments{0};   // any other validation error
  std::atomic<uint64_t> unknown_metrics{0};     // auto_create_metrics=false
  std::atomic<uint64_t> storage_errors{0};      // points storage refused
  std::atomic<uint64_t> series_cache_misses{0}; // resolves through storage
};

}  // namespace sundial::ingest
