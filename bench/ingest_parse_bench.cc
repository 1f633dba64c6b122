// ingest_parse_bench: CPU cost of the write path's parsing alone. Runs the
// load generator's telnet payload and HTTP bodies through TelnetPutHandler
// and HttpPutHandler against a storage that only counts, and prints ns per
// point. The influx mode sends InfluxDB line protocol (the 10 cpu fields
// per line, 5000 lines per body) through LineProtocolHandler.
// Usage: ingest_parse_bench [hosts] [steps] [telnet|json|both|influx]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ingest_load_data.h"
#include "sundial/ingest/http_put_handler.h"
#include "sundial/ingest/line_protocol_handler.h"
#include "sundial/ingest/telnet_put_handler.h"

namespace {

using namespace sundial;

// CPU time of this thread: the machine is shared, wall time is not a
// measure of the parser.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

class CountingStorage : public storage::Storage {
 public:
  Status ResolveSeries(std::string_view, const storage::TagRef*, size_t, SeriesId* id) override {
    *id = next_++;
    return Status::OK();
  }
  Status Append(const storage::SeriesPoint* p, size_t n) override {
    points += n;
    checksum += static_cast<uint64_t>(p[n - 1].t);
    return Status::OK();
  }
  Status Sync() override { return Status::OK(); }
  std::unique_ptr<SampleIterator> NewIterator(SeriesId, Timestamp, Timestamp) override {
    return nullptr;
  }
  Status LastPoint(SeriesId, Sample*) override { return Status::NotFound(""); }
  std::vector<SeriesId> SeriesOfMetric(std::string_view) override { return {}; }
  std::vector<SeriesId> SeriesWithTag(std::string_view, std::string_view) override { return {}; }
  Status GetSeriesKey(SeriesId, storage::SeriesKey*) override { return Status::NotFound(""); }
  Status GetSeriesKeyRef(SeriesId, storage::SeriesKeyRef*) override {
    return Status::NotFound("");
  }
  Status LookupUid(storage::NameKind, std::string_view, uint32_t*) override {
    return Status::NotFound("");
  }
  std::vector<std::string> SuggestNames(storage::NameKind, std::string_view, size_t) override {
    return {};
  }
  storage::StorageStats stats() override { return {}; }

  uint64_t points = 0;
  uint64_t checksum = 0;

 private:
  SeriesId next_ = 0;
};

}  // namespace

int RunInflux(bench::LoadSpec spec) {
  spec.metrics = 10;  // the cpu group: one line of 10 fields per host and step
  const auto requests = bench::MakeInfluxRequests(spec, "x", "/write")[0];
  ingest::IngestOptions options;
  const ingest::PointRules rules(options);
  ingest::IngestStats stats;
  CountingStorage storage;
  ingest::LineProtocolHandler handler(&storage, &options, &rules, &stats);
  ingest::LineProtocolOutcome out;
  size_t bad = 0, bytes = 0;
  const double t0 = CpuSeconds();
  for (const std::string& req : requests) {
    const std::string_view body = std::string_view(req).substr(req.find("\r\n\r\n") + 4);
    bytes += body.size();
    handler.HandleBody(body, ingest::Precision::kNanosecond, 0, &out);
    bad += out.bad_lines;
  }
  const double s = CpuSeconds() - t0;
  std::printf("influx: %llu points, %.1f ns CPU/point, %.2f M points/s, %.1f MB/s, bad lines=%zu\n",
              static_cast<unsigned long long>(storage.points), s * 1e9 / storage.points,
              storage.points / s / 1e6, bytes / s / 1e6, bad);
  return 0;
}

int main(int argc, char** argv) {
  bench::LoadSpec spec;
  spec.connections = 1;
  if (argc > 1) spec.hosts = std::atoi(argv[1]);
  spec.duration_s = (argc > 2 ? std::atoi(argv[2]) : 120) * spec.interval_s;
  const std::string which = argc > 3 ? argv[3] : "both";
  if (which == "influx") return RunInflux(spec);
  const std::string payload =
      which != "json" ? bench::MakeTelnetPayloads(spec)[0] : std::string();
  const auto requests =
      which != "telnet" ? bench::MakeHttpRequests(spec, "x")[0] : std::vector<std::string>();
  ingest::IngestOptions options;
  const ingest::PointRules rules(options);
  ingest::IngestStats stats;
  if (!payload.empty()) {
    // Calibration: one pass over the bytes finding line ends, for scale.
    const double c0 = CpuSeconds();
    size_t lines = 0;
    for (const char* p = payload.data(), *end = p + payload.size();
         (p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))));
         ++p) {
      ++lines;
    }
    const double cs = CpuSeconds() - c0;
    std::printf("calibration: memchr over the lines: %.1f ns/line (%zu lines)\n",
                cs * 1e9 / static_cast<double>(lines), lines);
  }
  if (!payload.empty()) {
    CountingStorage storage;
    ingest::TelnetPutHandler handler(&storage, &options, &rules, &stats);
    std::string reply;
    // As a busy connection does: copy a read's worth (512 KiB, as the
    // kernel would) into the read buffer, hand over its complete lines, flush.
    constexpr size_t kReadSize = 512 * 1024;
    std::string buffer(kReadSize, '\0');
    const double t0 = CpuSeconds();
    size_t pos = 0;
    while (pos < payload.size()) {
      size_t n = std::min(kReadSize, payload.size() - pos);
      std::memcpy(&buffer[0], payload.data() + pos, n);
      n = std::string_view(buffer.data(), n).rfind('\n') + 1;
      pos += handler.HandlePutLines(std::string_view(buffer.data(), n), &reply);
      (void)handler.Flush(&reply);
    }
    (void)handler.Flush(&reply);
    const double s = CpuSeconds() - t0;
    std::printf("telnet: %llu points, %.1f ns CPU/point, %.2f M points/s, %.1f MB/s, errors=%zu\n",
                static_cast<unsigned long long>(storage.points), s * 1e9 / storage.points,
                storage.points / s / 1e6, payload.size() / s / 1e6, reply.size());
  }
  if (!requests.empty()) {
    CountingStorage storage;
    ingest::HttpPutHandler handler(&storage, &options, &rules, &stats);
    ingest::HttpPutOutcome out;
    size_t failed = 0;
    const double t0 = CpuSeconds();
    for (const std::string& req : requests) {
      handler.Handle(std::string_view(req).substr(req.find("\r\n\r\n") + 4), false, &out);
      failed += out.failed;
    }
    const double s = CpuSeconds() - t0;
    std::printf("json:   %llu points, %.1f ns CPU/point, %.2f M points/s, failed=%zu\n",
                static_cast<unsigned long long>(storage.points), s * 1e9 / storage.points,
                storage.points / s / 1e6, failed);
  }
  return 0;
}
