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
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace sundial::ingest {

// The wire protocols that feed the write path; each has its own accepted /
// rejected counters (reported with the tag protocol=<ProtocolName>).
enum class Protocol : uint8_t {
  kPut,          // telnet-style `put` lines
  kHttpPut,      // POST /api/put
  kInflux,       // InfluxDB line protocol (HTTP /write, /api/v2/write, telnet port)
  kRemoteWrite,  // Prometheus remote_write
  kGraphite,     // Graphite plaintext
};
constexpr size_t kProtocolCount = 5;

// The protocol's label: put, http_put, influx, remote_write, graphite.
constexpr std::string_view ProtocolName(Protocol p) {
  switch (p) {
    case Protocol::kPut: return "put";
    case Protocol::kHttpPut: return "http_put";
    case Protocol::kInflux: return "influx";
    case Protocol::kRemoteWrite: return "remote_write";
    case Protocol::kGraphite: return "graphite";
  }
  return "unknown";
}

// Points of one protocol. A point is accepted once storage acknowledged it
// (it is in the WAL) and rejected when validation or storage refused it.
struct ProtocolCounters {
  std::atomic<uint64_t> accepted{0};
  std::atomic<uint64_t> rejected{0};
};

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
  std::atomic<uint64_t> influx_requests{0};     // HTTP line-protocol writes
  std::atomic<uint64_t> influx_string_fields{0};  // string fields skipped

  ProtocolCounters by_protocol[kProtocolCount];
  ProtocolCounters& of(Protocol p) { return by_protocol[static_cast<size_t>(p)]; }
  const ProtocolCounters& of(Protocol p) const { return by_protocol[static_cast<size_t>(p)]; }
};

}  // namespace sundial::ingest
