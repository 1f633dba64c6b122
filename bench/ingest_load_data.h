// The data set of the ingest load generator: DevOps-like series (hosts x
// metrics, 8 tags each, one point per interval), generated before the clock
// starts from a fixed seed, so every run and every server gets the same
// bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sundial::bench {

struct LoadSpec {
  int hosts = 100;
  int metrics = 101;          // at most 101 distinct names
  int64_t start_s = 1700000000;
  int duration_s = 3600;
  int interval_s = 10;
  uint64_t seed = 42;
  int connections = 4;
  int http_batch = 5000;      // points per /api/put request
  // false: percentages with 2 decimals, counters and gauges as integers;
  // true: every series a random walk of full-precision doubles (each step
  // uniform in [-1, 1)), printed with 17 significant digits.
  bool full_precision = false;

  uint64_t points() const {
    return static_cast<uint64_t>(hosts) * metrics * (duration_s / interval_s);
  }
};

// One buffer of telnet `put` lines per connection: hosts are split across
// connections (host i goes to connection i % connections), and each
// connection sends its hosts' points in time order.
std::vector<std::string> MakeTelnetPayloads(const LoadSpec& spec);

// Complete HTTP/1.1 POST /api/put requests (keep-alive, Content-Length),
// per connection, http_batch points each, split across connections as
// above.
std::vector<std::vector<std::string>> MakeHttpRequests(const LoadSpec& spec,
                                                       const std::string& host_header);

// Complete HTTP/1.1 POST /api/v1/write requests (Prometheus remote_write
// 1.0: snappy-compressed WriteRequest, one sample per TimeSeries as
// Prometheus sends them), per connection, http_batch samples each. Metric
// names have '_' for '.' (Prometheus names allow no dots); labels are
// sorted by name, __name__ first, as Prometheus sorts them.
std::vector<std::vector<std::string>> MakeRemoteWriteRequests(const LoadSpec& spec,
                                                              const std::string& host_header);

// Complete HTTP/1.1 POST <path> requests of InfluxDB line protocol, per
// connection, http_batch lines each, split across connections as above.
// The metrics of one group become the fields of one line: with
// metrics=10, "cpu,host=host_0,region=...(8 tags) usage_user=12.5,
// usage_system=...,... <ns timestamp>" (10 points per line).
std::vector<std::vector<std::string>> MakeInfluxRequests(const LoadSpec& spec,
                                                         const std::string& host_header,
                                                         const std::string& path);

}  // namespace sundial::bench
