#include "ingest_load_data.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string_view>

#include <snappy.h>

namespace sundial::bench {
namespace {

// 101 metric names in the shape of the TSBS DevOps use case.
std::vector<std::string> MetricNames() {
  const std::pair<const char*, std::vector<const char*>> groups[] = {
      {"cpu", {"usage_user", "usage_system", "usage_idle", "usage_nice", "usage_iowait",
               "usage_irq", "usage_softirq", "usage_steal", "usage_guest", "usage_guest_nice"}},
      {"diskio", {"reads", "writes", "read_bytes", "write_bytes", "read_time", "write_time",
                  "io_time"}},
      {"disk", {"total", "free", "used", "used_percent", "inodes_total", "inodes_free",
                "inodes_used"}},
      {"kernel", {"boot_time", "interrupts", "context_switches", "processes_forked",
                  "disk_pages_in", "disk_pages_out"}},
      {"mem", {"total", "available", "used", "free", "cached", "buffered", "used_percent",
               "available_percent", "buffered_percent"}},
      {"net", {"bytes_sent", "bytes_recv", "packets_sent", "packets_recv", "err_in", "err_out",
               "drop_in", "drop_out"}},
      {"nginx", {"accepts", "active", "handled", "reading", "requests", "waiting", "writing"}},
      {"postgresl", {"numbackends", "xact_commit", "xact_rollback", "blks_read", "blks_hit",
                     "tup_returned", "tup_fetched", "tup_inserted", "tup_updated", "tup_deleted",
                     "conflicts", "temp_files", "temp_bytes", "deadlocks", "blk_read_time",
                     "blk_write_time"}},
      {"redis", {"uptime_in_seconds", "total_connections_received", "expired_keys",
                 "evicted_keys", "keyspace_hits", "keyspace_misses", "instantaneous_ops_per_sec",
                 "instantaneous_input_kbps", "instantaneous_output_kbps", "connected_clients",
                 "used_memory", "used_memory_rss", "used_memory_peak", "used_memory_lua",
                 "rdb_changes_since_last_save", "sync_full", "sync_partial_ok",
                 "sync_partial_err", "pubsub_channels", "pubsub_patterns", "latest_fork_usec",
                 "connected_slaves", "master_repl_offset", "repl_backlog_active",
                 "repl_backlog_size", "repl_backlog_histlen", "mem_fragmentation_ratio",
                 "used_cpu_sys", "used_cpu_user", "used_cpu_sys_children",
                 "used_cpu_user_children"}},
  };
  std::vector<std::string> names;
  for (const auto& [group, fields] : groups) {
    for (const char* f : fields) names.push_back(std::string(group) + "." + f);
  }
  return names;
}

struct Host {
  std::vector<std::pair<std::string, std::string>> tags;  // 8 tags
};

std::vector<Host> MakeHosts(const LoadSpec& spec, std::mt19937_64* rng) {
  const char* regions[] = {"us-east-1", "us-west-1", "us-west-2", "eu-west-1", "eu-central-1",
                           "ap-southeast-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1"};
  const char* oses[] = {"Ubuntu16.10", "Ubuntu16.04LTS", "Ubuntu15.10"};
  const char* teams[] = {"SF", "NYC", "LON", "CHI"};
  std::vector<Host> hosts(static_cast<size_t>(spec.hosts));
  for (int i = 0; i < spec.hosts; ++i) {
    const std::string region = regions[(*rng)() % 9];
    auto& t = hosts[static_cast<size_t>(i)].tags;
    t.emplace_back("host", "host_" + std::to_string(i));
    t.emplace_back("region", region);
    t.emplace_back("datacenter", region + static_cast<char>('a' + (*rng)() % 3));
    t.emplace_back("rack", std::to_string((*rng)() % 100));
    t.emplace_back("os", oses[(*rng)() % 3]);
    t.emplace_back("arch", ((*rng)() & 1) ? "x64" : "x86");
    t.emplace_back("team", teams[(*rng)() % 4]);
    t.emplace_back("service", std::to_string((*rng)() % 20));
  }
  return hosts;
}

// A value series: percentages are 2-decimal random walks in [0, 100];
// other metrics are integer counters or gauges.
struct Walk {
  bool percent = false;
  bool counter = false;
  int64_t v = 0;  // percent: hundredths
  bool full = false;  // LoadSpec::full_precision: f is the value
  double f = 0;
};

void Step(Walk* w, std::mt19937_64* rng) {
  if (w->full) {
    w->f += static_cast<double>((*rng)() >> 11) * 0x1p-52 - 1.0;
  } else if (w->percent) {
    w->v += static_cast<int64_t>((*rng)() % 201) - 100;
    if (w->v < 0) w->v = -w->v;
    if (w->v > 10000) w->v = 20000 - w->v;
  } else if (w->counter) {
    w->v += static_cast<int64_t>((*rng)() % 1000);
  } else {
    w->v += static_cast<int64_t>((*rng)() % 21) - 10;
    if (w->v < 0) w->v = 0;
  }
}

int FormatValue(const Walk& w, char* buf, size_t n) {
  if (w.full) return std::snprintf(buf, n, "%.17g", w.f);
  if (w.percent) {
    return std::snprintf(buf, n, "%lld.%02lld", static_cast<long long>(w.v / 100),
                         static_cast<long long>(w.v % 100));
  }
  return std::snprintf(buf, n, "%lld", static_cast<long long>(w.v));
}

// Calls emit(conn, metric, tags_of_host, ts, value_text) for every point, in
// the order described in the header.
template <typename Emit>
void Generate(const LoadSpec& spec, Emit emit) {
  std::mt19937_64 rng(spec.seed);
  const std::vector<std::string> names = MetricNames();
  const std::vector<Host> hosts = MakeHosts(spec, &rng);
  std::vector<Walk> walks(static_cast<size_t>(spec.hosts) * spec.metrics);
  for (size_t i = 0; i < walks.size(); ++i) {
    const std::string& name = names[i % static_cast<size_t>(spec.metrics)];
    walks[i].percent = name.find("usage") != std::string::npos ||
                       name.find("percent") != std::string::npos;
    walks[i].counter = !walks[i].percent && (rng() & 1);
    walks[i].v = static_cast<int64_t>(rng() % (walks[i].percent ? 10000 : 100000));
    walks[i].full = spec.full_precision;
    walks[i].f = static_cast<double>(walks[i].v) / (walks[i].percent ? 100 : 1);
  }
  char value[32];
  for (int64_t ts = spec.start_s; ts < spec.start_s + spec.duration_s; ts += spec.interval_s) {
    for (int h = 0; h < spec.hosts; ++h) {
      const int conn = h % spec.connections;
      for (int m = 0; m < spec.metrics; ++m) {
        Walk& w = walks[static_cast<size_t>(h) * spec.metrics + m];
        Step(&w, &rng);
        FormatValue(w, value, sizeof value);
        emit(conn, names[static_cast<size_t>(m)], hosts[static_cast<size_t>(h)], ts, value);
      }
    }
  }
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// A length-delimited protobuf field.
void PutField(uint32_t number, std::string_view payload, std::string* out) {
  PutVarint(number << 3 | 2, out);
  PutVarint(payload.size(), out);
  out->append(payload);
}

}  // namespace

std::vector<std::string> MakeTelnetPayloads(const LoadSpec& spec) {
  std::vector<std::string> out(static_cast<size_t>(spec.connections));
  for (auto& s : out) s.reserve(spec.points() / spec.connections * 150);
  Generate(spec, [&](int conn, const std::string& metric, const Host& host, int64_t ts,
                     const char* value) {
    std::string& s = out[static_cast<size_t>(conn)];
    s += "put ";
    s += metric;
    s += ' ';
    s += std::to_string(ts);
    s += ' ';
    s += value;
    for (const auto& [k, v] : host.tags) {
      s += ' ';
      s += k;
      s += '=';
      s += v;
    }
    s += '\n';
  });
  return out;
}

std::vector<std::vector<std::string>> MakeHttpRequests(const LoadSpec& spec,
                                                       const std::string& host_header) {
  std::vector<std::vector<std::string>> out(static_cast<size_t>(spec.connections));
  std::vector<std::string> body(static_cast<size_t>(spec.connections));
  std::vector<int> count(static_cast<size_t>(spec.connections), 0);
  auto finish = [&](size_t conn) {
    if (count[conn] == 0) return;
    body[conn] += ']';
    std::string req = "POST /api/put HTTP/1.1\r\nHost: " + host_header +
                      "\r\nContent-Type: application/json\r\nContent-Length: " +
                      std::to_string(body[conn].size()) + "\r\n\r\n";
    req += body[conn];
    out[conn].push_back(std::move(req));
    body[conn].clear();
    count[conn] = 0;
  };
  Generate(spec, [&](int c, const std::string& metric, const Host& host, int64_t ts,
                     const char* value) {
    const auto conn = static_cast<size_t>(c);
    std::string& b = body[conn];
    b += count[conn] == 0 ? "[" : ",";
    b += "{\"metric\":\"" + metric + "\",\"timestamp\":" + std::to_string(ts) +
         ",\"value\":" + value + ",\"tags\":{";
    bool first = true;
    for (const auto& [k, v] : host.tags) {
      if (!first) b += ',';
      first = false;
      b += '"' + k + "\":\"" + v + '"';
    }
    b += "}}";
    if (++count[conn] == spec.http_batch) finish(conn);
  });
  for (size_t c = 0; c < out.size(); ++c) finish(c);
  return out;
}

std::vector<std::vector<std::string>> MakeRemoteWriteRequests(const LoadSpec& spec,
                                                              const std::string& host_header) {
  const auto conns = static_cast<size_t>(spec.connections);
  std::vector<std::vector<std::string>> out(conns);
  std::vector<std::string> request(conns);
  std::vector<int> count(conns, 0);
  auto finish = [&](size_t conn) {
    if (count[conn] == 0) return;
    std::string body;
    snappy::Compress(request[conn].data(), request[conn].size(), &body);
    std::string req = "POST /api/v1/write HTTP/1.1\r\nHost: " + host_header +
                      "\r\nContent-Type: application/x-protobuf\r\nContent-Encoding: snappy"
                      "\r\nX-Prometheus-Remote-Write-Version: 0.1.0\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\n\r\n";
    req += body;
    out[conn].push_back(std::move(req));
    request[conn].clear();
    count[conn] = 0;
  };
  std::string series, label, sample, name;
  std::vector<std::pair<std::string, std::string>> labels;
  Generate(spec, [&](int c, const std::string& metric, const Host& host, int64_t ts,
                     const char* value) {
    const auto conn = static_cast<size_t>(c);
    name = metric;
    std::replace(name.begin(), name.end(), '.', '_');
    labels = host.tags;
    std::sort(labels.begin(), labels.end());
    series.clear();
    label.clear();
    PutField(1, "__name__", &label);
    PutField(2, name, &label);
    PutField(1, label, &series);
    for (const auto& [k, v] : labels) {
      label.clear();
      PutField(1, k, &label);
      PutField(2, v, &label);
      PutField(1, label, &series);
    }
    const double d = std::strtod(value, nullptr);
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    sample.assign(1, '\x09');
    for (int i = 0; i < 8; ++i) sample.push_back(static_cast<char>(bits >> (8 * i)));
    sample.push_back('\x10');
    PutVarint(static_cast<uint64_t>(ts * 1000), &sample);
    PutField(2, sample, &series);
    PutField(1, series, &request[conn]);
    if (++count[conn] == spec.http_batch) finish(conn);
  });
  for (size_t c = 0; c < conns; ++c) finish(c);
  return out;
}

std::vector<std::vector<std::string>> MakeInfluxRequests(const LoadSpec& spec,
                                                         const std::string& host_header,
                                                         const std::string& path) {
  const auto conns = static_cast<size_t>(spec.connections);
  std::vector<std::vector<std::string>> out(conns);
  std::vector<std::string> body(conns);
  std::vector<int> lines(conns, 0);
  auto finish = [&](size_t conn) {
    if (lines[conn] == 0) return;
    std::string req = "POST " + path + " HTTP/1.1\r\nHost: " + host_header +
                      "\r\nContent-Type: text/plain\r\nContent-Length: " +
                      std::to_string(body[conn].size()) + "\r\n\r\n";
    req += body[conn];
    out[conn].push_back(std::move(req));
    body[conn].clear();
    lines[conn] = 0;
  };
  // The line being built per connection: its host, time and group.
  struct Open {
    const Host* host = nullptr;
    int64_t ts = -1;
    std::string group;
  };
  std::vector<Open> open(conns);
  auto end_line = [&](size_t conn) {
    Open& o = open[conn];
    if (o.host == nullptr) return;
    body[conn] += ' ' + std::to_string(o.ts) + "000000000\n";
    o.host = nullptr;
    if (++lines[conn] == spec.http_batch) finish(conn);
  };
  Generate(spec, [&](int c, const std::string& metric, const Host& host, int64_t ts,
                     const char* value) {
    const auto conn = static_cast<size_t>(c);
    const size_t dot = metric.find('.');
    const std::string group = metric.substr(0, dot);
    Open& o = open[conn];
    std::string& b = body[conn];
    if (o.host != &host || o.ts != ts || o.group != group) {
      end_line(conn);
      o.host = &host;
      o.ts = ts;
      o.group = group;
      b += group;
      for (const auto& [k, v] : host.tags) b += ',' + k + '=' + v;
      b += ' ';
    } else {
      b += ',';
    }
    b += metric.substr(dot + 1);
    b += '=';
    b += value;
  });
  for (size_t c = 0; c < conns; ++c) {
    end_line(c);
    finish(c);
  }
  return out;
}

}  // namespace sundial::bench
