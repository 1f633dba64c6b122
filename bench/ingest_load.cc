// ingest_load: the ingest load generator.
//
// Pre-generates a DevOps-like data set (ingest_load_data.h) before the clock
// starts, sends it over N telnet connections, as HTTP /api/put batches,
// (--protocol=remote_write) as Prometheus remote_write requests, or
// (--protocol=influx) as InfluxDB line protocol, --batch lines per POST to
// --path (Sundial /write, VictoriaMetrics /influx/write),
// waits until the server reports every point stored, and prints points/s,
// the server's CPU seconds (from /proc/<pid>/stat) and its peak RSS (VmHWM
// and RssAnon from /proc/<pid>/status). Works against Sundial (stored
// points from /api/stats, tsd.datapoints.added), VictoriaMetrics (its
// OpenTSDB listeners; stored points from /metrics,
// vm_rows_added_to_storage_total) and InfluxDB 1.x (its OpenTSDB listener;
// stored points from /debug/vars, the shards' writePointsOk summed).
//
//   ingest_load --protocol=telnet|http|influx --port=4242 --pid=<server pid>
//               [--connections=4 --hosts=100 --metrics=101 --duration=3600
//                --interval=10 --seed=42 --batch=5000 --stats=sundial|vm|influx
//                --stats-port=<port> --timeout=300 --path=/write
//                --values=decimal|full]
//   ingest_load --dump=FILE [same data set flags]   (a tsdb import file)
//
// The sender threads do nothing but write pre-built bytes, so the client
// costs little CPU; its own CPU time is printed too.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ingest_load_data.h"

namespace sundial::bench {
namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string protocol = "telnet";
  int port = 4242;
  int stats_port = 0;  // 0: same as port
  std::string stats = "sundial";
  std::string dump;  // --dump=PATH: write the data set as a tsdb import file and exit
  std::string path = "/write";  // --protocol=influx: the write endpoint
  int pid = 0;
  double timeout_s = 300;
  LoadSpec spec;
};

bool ParseArgs(int argc, char** argv, Args* a) {
  std::map<std::string, std::string> kv;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) != 0 || s.find('=') == std::string::npos) {
      std::fprintf(stderr, "bad argument %s (want --key=value)\n", s.c_str());
      return false;
    }
    kv[s.substr(2, s.find('=') - 2)] = s.substr(s.find('=') + 1);
  }
  auto num = [&](const char* k, auto* out) {
    if (kv.count(k)) *out = static_cast<std::remove_pointer_t<decltype(out)>>(std::stod(kv[k]));
    kv.erase(k);
  };
  if (kv.count("protocol")) a->protocol = kv["protocol"], kv.erase("protocol");
  if (kv.count("stats")) a->stats = kv["stats"], kv.erase("stats");
  if (kv.count("dump")) a->dump = kv["dump"], kv.erase("dump");
  if (kv.count("path")) a->path = kv["path"], kv.erase("path");
  num("port", &a->port);
  num("stats-port", &a->stats_port);
  num("pid", &a->pid);
  num("timeout", &a->timeout_s);
  num("connections", &a->spec.connections);
  num("hosts", &a->spec.hosts);
  num("metrics", &a->spec.metrics);
  num("duration", &a->spec.duration_s);
  num("interval", &a->spec.interval_s);
  num("seed", &a->spec.seed);
  num("batch", &a->spec.http_batch);
  if (kv.count("values")) {
    if (kv["values"] != "decimal" && kv["values"] != "full") {
      std::fprintf(stderr, "--values must be decimal or full\n");
      return false;
    }
    a->spec.full_precision = kv["values"] == "full";
    kv.erase("values");
  }
  if (!kv.empty()) {
    std::fprintf(stderr, "unknown argument --%s\n", kv.begin()->first.c_str());
    return false;
  }
  if (a->stats_port == 0) a->stats_port = a->port;
  if (a->spec.metrics > 101 || a->spec.metrics < 1 || a->spec.connections < 1) {
    std::fprintf(stderr, "--metrics must be 1..101, --connections >= 1\n");
    return false;
  }
  if (a->stats != "sundial" && a->stats != "vm" && a->stats != "influx") {
    std::fprintf(stderr, "--stats must be sundial, vm or influx\n");
    return false;
  }
  return a->protocol == "telnet" || a->protocol == "http" || a->protocol == "influx" ||
         a->protocol == "remote_write";
}

// Writes the telnet payloads without their "put " prefixes: the same points
// as a `tsdb import` file, for `sundiald import` (bench/import_vs_vm.sh).
int Dump(const Args& a) {
  std::FILE* f = std::fopen(a.dump.c_str(), "wb");
  if (f == nullptr) {
    std::perror(a.dump.c_str());
    return 1;
  }
  for (const std::string& payload : MakeTelnetPayloads(a.spec)) {
    for (size_t p = 0; p < payload.size();) {
      size_t nl = payload.find('\n', p);
      if (nl == std::string::npos) nl = payload.size() - 1;
      const size_t skip = payload.compare(p, 4, "put ") == 0 ? 4 : 0;
      std::fwrite(payload.data() + p + skip, 1, nl + 1 - p - skip, f);
      p = nl + 1;
    }
  }
  return std::fclose(f) == 0 ? 0 : 1;
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::perror("connect");
    std::exit(1);
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

void WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) {
      std::perror("send");
      std::exit(1);
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// GET path over a fresh connection; returns the body.
std::string HttpGet(int port, const std::string& path) {
  const int fd = Connect(port);
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  WriteAll(fd, req.data(), req.size());
  std::string resp;
  char buf[65536];
  for (ssize_t r; (r = recv(fd, buf, sizeof buf, 0)) > 0;) resp.append(buf, static_cast<size_t>(r));
  close(fd);
  const size_t body = resp.find("\r\n\r\n");
  return body == std::string::npos ? "" : resp.substr(body + 4);
}

// Points the server reports as stored.
uint64_t StoredPoints(const Args& a) {
  if (a.stats == "vm") {
    const std::string m = HttpGet(a.stats_port, "/metrics");
    const std::string key = "\nvm_rows_added_to_storage_total ";
    const size_t p = m.find(key);
    return p == std::string::npos ? 0 : std::strtoull(m.c_str() + p + key.size(), nullptr, 10);
  }
  if (a.stats == "influx") {
    const std::string v = HttpGet(a.stats_port, "/debug/vars");
    const std::string key = "\"writePointsOk\":";
    uint64_t sum = 0;
    for (size_t p = v.find(key); p != std::string::npos; p = v.find(key, p + key.size())) {
      sum += std::strtoull(v.c_str() + p + key.size(), nullptr, 10);
    }
    return sum;
  }
  const std::string s = HttpGet(a.stats_port, "/api/stats");
  size_t p = s.find("\"tsd.datapoints.added\"");
  if (p == std::string::npos) return 0;
  p = s.find("\"value\":\"", p);
  return p == std::string::npos ? 0 : std::strtoull(s.c_str() + p + 9, nullptr, 10);
}

double ServerCpuSeconds(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::istringstream in(stat.substr(stat.rfind(')') + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && (in >> field); ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double StatusMb(int pid, const std::string& key) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) / 1024.0;
  }
  return 0;
}

// Sends a telnet payload, draining replies (error lines) meanwhile.
void SendTelnet(int port, const std::string& payload, std::atomic<uint64_t>* reply_bytes,
                std::vector<int>* fds, size_t idx) {
  const int fd = Connect(port);
  (*fds)[idx] = fd;
  std::thread reader([fd, reply_bytes] {
    char buf[4096];
    for (ssize_t r; (r = recv(fd, buf, sizeof buf, 0)) > 0;) reply_bytes->fetch_add(static_cast<uint64_t>(r));
  });
  constexpr size_t kChunk = 1 << 20;
  for (size_t off = 0; off < payload.size(); off += kChunk) {
    WriteAll(fd, payload.data() + off, std::min(kChunk, payload.size() - off));
  }
  reader.detach();  // ends when the connection is closed at exit
}

// Sends HTTP requests one after another on a keep-alive connection.
void SendHttp(int port, const std::vector<std::string>& requests, std::atomic<uint64_t>* bad) {
  const int fd = Connect(port);
  std::string in;
  char buf[65536];
  for (const std::string& req : requests) {
    WriteAll(fd, req.data(), req.size());
    for (;;) {  // read one response: head, then Content-Length bytes
      const size_t head_end = in.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        size_t len = 0;
        const size_t cl = in.find("ontent-Length:");
        if (cl != std::string::npos && cl < head_end) len = std::strtoull(in.c_str() + cl + 14, nullptr, 10);
        if (in.size() >= head_end + 4 + len) {
          if (in.compare(9, 1, "2") != 0) {
            bad->fetch_add(1);
            if (bad->load() == 1) std::fprintf(stderr, "response: %s\n", in.substr(0, 300).c_str());
          }
          in.erase(0, head_end + 4 + len);
          break;
        }
      }
      const ssize_t r = recv(fd, buf, sizeof buf, 0);
      if (r <= 0) {
        std::fprintf(stderr, "connection closed by the server\n");
        std::exit(1);
      }
      in.append(buf, static_cast<size_t>(r));
    }
  }
  close(fd);
}

int Run(const Args& a) {
  const LoadSpec& spec = a.spec;
  std::fprintf(stderr, "generating %llu points (%d hosts x %d metrics x %d steps), seed %llu\n",
               static_cast<unsigned long long>(spec.points()), spec.hosts, spec.metrics,
               spec.duration_s / spec.interval_s, static_cast<unsigned long long>(spec.seed));
  std::vector<std::string> telnet;
  std::vector<std::vector<std::string>> http;
  uint64_t bytes = 0;
  if (a.protocol == "telnet") {
    telnet = MakeTelnetPayloads(spec);
    for (const auto& s : telnet) bytes += s.size();
  } else if (a.protocol == "influx") {
    http = MakeInfluxRequests(spec, "127.0.0.1:" + std::to_string(a.port), a.path);
    for (const auto& v : http) {
      for (const auto& s : v) bytes += s.size();
    }
  } else {
    const std::string host = "127.0.0.1:" + std::to_string(a.port);
    http = a.protocol == "remote_write" ? MakeRemoteWriteRequests(spec, host)
                                        : MakeHttpRequests(spec, host);
    for (const auto& v : http) {
      for (const auto& s : v) bytes += s.size();
    }
  }
  const uint64_t before = StoredPoints(a);
  const uint64_t want = before + spec.points();
  const double cpu0 = a.pid ? ServerCpuSeconds(a.pid) : 0;
  rusage ru0{};
  getrusage(RUSAGE_SELF, &ru0);

  const auto t0 = Clock::now();
  std::atomic<uint64_t> reply_bytes{0}, bad{0};
  std::vector<int> fds(static_cast<size_t>(spec.connections), -1);
  std::vector<std::thread> senders;
  for (size_t c = 0; c < static_cast<size_t>(spec.connections); ++c) {
    if (a.protocol == "telnet") {
      senders.emplace_back(SendTelnet, a.port, std::cref(telnet[c]), &reply_bytes, &fds, c);
    } else {
      senders.emplace_back(SendHttp, a.port, std::cref(http[c]), &bad);
    }
  }
  for (auto& t : senders) t.join();
  const double sent_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (bad.load() > 0) {  // some points were refused: they will never be stored
    std::fprintf(stderr, "%llu requests were refused\n",
                 static_cast<unsigned long long>(bad.load()));
    return 3;
  }
  uint64_t stored = StoredPoints(a);
  while (stored < want) {
    if (std::chrono::duration<double>(Clock::now() - t0).count() > a.timeout_s) {
      std::fprintf(stderr, "timeout: server reports %llu of %llu points stored\n",
                   static_cast<unsigned long long>(stored - before),
                   static_cast<unsigned long long>(spec.points()));
      return 2;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    stored = StoredPoints(a);
  }
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  const double cpu = a.pid ? ServerCpuSeconds(a.pid) - cpu0 : 0;
  rusage ru1{};
  getrusage(RUSAGE_SELF, &ru1);
  auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  const double client_cpu = tv(ru1.ru_utime) + tv(ru1.ru_stime) - tv(ru0.ru_utime) - tv(ru0.ru_stime);
  for (int fd : fds) {
    if (fd >= 0) close(fd);
  }
  const double n = static_cast<double>(spec.points());
  std::printf("protocol=%s connections=%d points=%llu bytes=%llu seconds=%.3f sent_seconds=%.3f "
              "points_per_s=%.0f server_cpu_s=%.3f server_cpu_us_per_point=%.3f "
              "client_cpu_s=%.3f peak_rss_mb=%.1f rss_anon_mb=%.1f error_reply_bytes=%llu "
              "bad_responses=%llu\n",
              a.protocol.c_str(), spec.connections, static_cast<unsigned long long>(spec.points()),
              static_cast<unsigned long long>(bytes), secs, sent_s, n / secs, cpu,
              cpu * 1e6 / n, client_cpu, a.pid ? StatusMb(a.pid, "VmHWM") : 0.0,
              a.pid ? StatusMb(a.pid, "RssAnon") : 0.0,
              static_cast<unsigned long long>(reply_bytes.load()),
              static_cast<unsigned long long>(bad.load()));
  return reply_bytes.load() == 0 && bad.load() == 0 ? 0 : 3;
}

}  // namespace
}  // namespace sundial::bench

int main(int argc, char** argv) {
  sundial::bench::Args args;
  if (!sundial::bench::ParseArgs(argc, argv, &args)) return 1;
  if (!args.dump.empty()) return sundial::bench::Dump(args);
  return sundial::bench::Run(args);
}
