// query_bench: query latency and throughput over HTTP keep-alive.
//
// Runs three logical queries over the DevOps data set of ingest_load
// (100 hosts x 101 metrics, 1 h at 10 s, from --data-start) against Sundial
// (OpenTSDB /api/query) or VictoriaMetrics (PromQL /api/v1/query_range):
//   a  max of cpu.usage_user for 1 host over 1 h in 1 m buckets
//   b  the same for 8 hosts over 12 h
//   c  avg of cpu.usage_user grouped by host over 1 day in 1 h buckets
// Each query runs --seconds per concurrency level (1 and 2 client threads,
// one keep-alive connection each) after a warm-up, and the tool prints
// p50, p99 (ms) and queries/s, plus the size of the first answer. With
// --vm-port both servers are measured in alternating rounds (--rounds, 5)
// so that both see the same machine load, and p50 ratios are printed.
//
//   query_bench --port=4242 --vm-port=8428 [--rounds=5 --seconds=5]   (both, interleaved)
//   query_bench --target=sundial|vm --port=4242 [--seconds=5 --data-start=1700000000]
//               [--path=/any/get/target  (benchmarks that one request instead)]
//   --query=ab runs only those queries; --conc=1 only that concurrency (1,2).
//
// It prints figures only; it never asserts.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string target = "sundial";
  int port = 4242;
  double seconds = 5;
  long long data_start = 1700000000;
  std::string path;  // --path: benchmark this one GET target instead
  std::string only;  // --query: run just these queries (e.g. "ab")
  std::vector<int> concurrency = {1, 2};  // --conc: e.g. "1" or "1,2"
};

// A blocking HTTP/1.1 keep-alive client for one connection.
class Client {
 public:
  explicit Client(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      std::perror("connect");
      std::exit(1);
    }
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~Client() { close(fd_); }

  // Sends a GET and returns the status; *body receives the body.
  int Get(const std::string& target, std::string* body) {
    const std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    size_t off = 0;
    while (off < req.size()) {
      const ssize_t n = send(fd_, req.data() + off, req.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return -1;
      off += static_cast<size_t>(n);
    }
    return ReadResponse(body);
  }

 private:
  bool Fill() {
    char tmp[65536];
    const ssize_t n = recv(fd_, tmp, sizeof(tmp), 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }
  bool ReadLine(std::string* line) {
    size_t p;
    while ((p = buf_.find("\r\n")) == std::string::npos) {
      if (!Fill()) return false;
    }
    *line = buf_.substr(0, p);
    buf_.erase(0, p + 2);
    return true;
  }
  bool ReadN(size_t n, std::string* out) {
    while (buf_.size() < n) {
      if (!Fill()) return false;
    }
    out->append(buf_, 0, n);
    buf_.erase(0, n);
    return true;
  }
  int ReadResponse(std::string* body) {
    std::string line;
    if (!ReadLine(&line) || line.size() < 12) return -1;
    const int status = std::atoi(line.c_str() + 9);
    long long length = -1;
    bool chunked = false;
    while (ReadLine(&line) && !line.empty()) {
      for (char& c : line) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (line.rfind("content-length:", 0) == 0) length = std::atoll(line.c_str() + 15);
      if (line.rfind("transfer-encoding:", 0) == 0 && line.find("chunked") != std::string::npos) {
        chunked = true;
      }
    }
    body->clear();
    if (chunked) {
      for (;;) {
        if (!ReadLine(&line)) return -1;
        const size_t n = std::strtoul(line.c_str(), nullptr, 16);
        if (n == 0) {
          ReadLine(&line);
          break;
        }
        if (!ReadN(n, body) || !ReadLine(&line)) return -1;
      }
    } else if (length >= 0 && !ReadN(static_cast<size_t>(length), body)) {
      return -1;
    }
    return status;
  }

  int fd_ = -1;
  std::string buf_;
};

std::string UrlEncode(const std::string& s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

struct Query {
  const char* name;
  std::string target;
};

std::vector<Query> MakeQueries(const Args& a) {
  const long long s = a.data_start, h = s + 3600 - 1;
  const std::string metric = "cpu.usage_user";
  std::vector<Query> q;
  if (a.target == "sundial") {
    auto m = [&](long long start, long long end, const std::string& sub) {
      return "/api/query?start=" + std::to_string(start) + "&end=" + std::to_string(end) +
             "&m=" + UrlEncode(sub);
    };
    q.push_back({"a", m(s, h, "max:1m-max:" + metric + "{host=host_0}")});
    std::string eight;
    for (int i = 0; i < 8; ++i) eight += (i ? "|host_" : "host_") + std::to_string(i);
    // Second braces: a filter, not a group-by, so the 8 hosts form one series.
    q.push_back({"b", m(h - 12 * 3600 + 1, h, "max:1m-max:" + metric + "{}{host=" + eight + "}")});
    q.push_back({"c", m(h - 86400 + 1, h, "avg:1h-avg:" + metric + "{host=*}")});
  } else {
    auto r = [&](long long start, long long end, int step, const std::string& promql) {
      return "/api/v1/query_range?start=" + std::to_string(start) + "&end=" + std::to_string(end) +
             "&step=" + std::to_string(step) + "&query=" + UrlEncode(promql);
    };
    const std::string sel = "{__name__=\"" + metric + "\"";
    q.push_back({"a", r(s, h, 60, "max(max_over_time(" + sel + ",host=\"host_0\"}[1m]))")});
    q.push_back({"b", r(h - 12 * 3600 + 1, h, 60,
                        "max(max_over_time(" + sel + ",host=~\"host_[0-7]\"}[1m]))")});
    q.push_back({"c", r(h - 86400 + 1, h, 3600, "avg by (host) (avg_over_time(" + sel + "}[1h]))")});
  }
  if (!a.only.empty()) {
    q.erase(std::remove_if(q.begin(), q.end(),
                           [&](const Query& x) { return a.only.find(x.name) == std::string::npos; }),
            q.end());
  }
  return q;
}

// Latencies (ms) and wall seconds of runs of one query, accumulated.
struct Samples {
  std::vector<double> ms;
  double wall_s = 0;
};

// Runs target for `seconds` with `threads` keep-alive connections.
void RunOne(int port, const std::string& target, const char* name, double seconds, int threads,
            Samples* out) {
  std::vector<std::vector<double>> lat(static_cast<size_t>(threads));
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      Client c(port);
      std::string body;
      for (int i = 0; i < 20; ++i) c.Get(target, &body);  // warm-up
      while (!stop.load(std::memory_order_relaxed)) {
        const auto s = Clock::now();
        if (c.Get(target, &body) != 200) ++errors;
        lat[static_cast<size_t>(t)].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - s).count());
      }
    });
  }
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop = true;
  for (auto& th : ts) th.join();
  out->wall_s += std::chrono::duration<double>(Clock::now() - t0).count();
  for (auto& v : lat) out->ms.insert(out->ms.end(), v.begin(), v.end());
  if (errors > 0) std::fprintf(stderr, "query %s: %d non-200 answers\n", name, errors.load());
}

struct Result {
  double p50_ms = 0, p99_ms = 0, qps = 0;
  size_t n = 0;
};

Result Summarise(Samples s) {
  Result r;
  std::sort(s.ms.begin(), s.ms.end());
  r.n = s.ms.size();
  if (!s.ms.empty()) {
    r.p50_ms = s.ms[s.ms.size() / 2];
    r.p99_ms = s.ms[std::min(s.ms.size() - 1, s.ms.size() * 99 / 100)];
  }
  r.qps = s.wall_s > 0 ? static_cast<double>(s.ms.size()) / s.wall_s : 0;
  return r;
}

size_t FirstAnswerSize(int port, const Query& q) {
  Client c(port);
  std::string body;
  const int status = c.Get(q.target, &body);
  if (status != 200) std::fprintf(stderr, "query %s answered %d: %.300s\n", q.name, status, body.c_str());
  return body.size();
}

void PrintRow(const char* target, const Query& q, int conc, const Result& r, size_t bytes) {
  std::printf("%-8s %-5s %-4d %10.3f %10.3f %10.0f %8zu %8zu\n", target, q.name, conc, r.p50_ms,
              r.p99_ms, r.qps, r.n, bytes);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  int vm_port = 0;
  int rounds = 5;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const size_t eq = s.find('=');
    const std::string k = s.substr(0, eq), v = eq == std::string::npos ? "" : s.substr(eq + 1);
    if (k == "--target") a.target = v;
    else if (k == "--port") a.port = std::atoi(v.c_str());
    else if (k == "--vm-port") vm_port = std::atoi(v.c_str());
    else if (k == "--rounds") rounds = std::max(1, std::atoi(v.c_str()));
    else if (k == "--seconds") a.seconds = std::atof(v.c_str());
    else if (k == "--data-start") a.data_start = std::atoll(v.c_str());
    else if (k == "--path") a.path = v;
    else if (k == "--query") a.only = v;
    else if (k == "--conc") {
      a.concurrency.clear();
      for (const char* p = v.c_str(); *p != '\0'; p += *p == ',') {
        char* end;
        a.concurrency.push_back(std::max(1, static_cast<int>(std::strtol(p, &end, 10))));
        if (end == p) break;
        p = end;
      }
    } else {
      std::fprintf(stderr, "usage: query_bench --target=sundial|vm --port=N [--seconds=5 "
                           "--data-start=1700000000 --path=/x --query=abc --conc=1,2]\n"
                           "       query_bench --port=SUNDIAL --vm-port=VM [--rounds=5 --seconds=5]\n");
      return 2;
    }
  }
  std::printf("%-8s %-5s %-4s %10s %10s %10s %8s %8s\n", "target", "query", "conc", "p50_ms",
              "p99_ms", "qps", "n", "bytes");
  if (vm_port != 0) {
    // Interleaved comparison: rounds of Sundial then VictoriaMetrics, so
    // that both see the same machine load.
    a.target = "sundial";
    const std::vector<Query> sq = MakeQueries(a);
    Args va = a;
    va.target = "vm";
    const std::vector<Query> vq = MakeQueries(va);
    std::vector<std::string> ratios;
    for (size_t i = 0; i < sq.size(); ++i) {
      const size_t sb = FirstAnswerSize(a.port, sq[i]), vb = FirstAnswerSize(vm_port, vq[i]);
      for (int conc : a.concurrency) {
        Samples ss, vs;
        for (int r = 0; r < rounds; ++r) {
          RunOne(a.port, sq[i].target, sq[i].name, a.seconds / rounds, conc, &ss);
          RunOne(vm_port, vq[i].target, vq[i].name, a.seconds / rounds, conc, &vs);
        }
        const Result sr = Summarise(std::move(ss)), vr = Summarise(std::move(vs));
        PrintRow("sundial", sq[i], conc, sr, sb);
        PrintRow("vm", vq[i], conc, vr, vb);
        char line[200];
        std::snprintf(line, sizeof(line),
                      "query %s conc %d: p50 %.3f ms vs %.3f ms = %.2fx   qps %.0f vs %.0f",
                      sq[i].name, conc, sr.p50_ms, vr.p50_ms, vr.p50_ms > 0 ? sr.p50_ms / vr.p50_ms : 0,
                      sr.qps, vr.qps);
        ratios.push_back(line);
      }
    }
    std::printf("== Sundial / VictoriaMetrics (p50 ratio; < 1 means Sundial is faster)\n");
    for (const std::string& l : ratios) std::printf("%s\n", l.c_str());
    return 0;
  }
  std::vector<Query> queries = MakeQueries(a);
  if (!a.path.empty()) queries = {{"path", a.path}};
  for (const Query& q : queries) {
    const size_t bytes = FirstAnswerSize(a.port, q);
    for (int conc : a.concurrency) {
      Samples s;
      RunOne(a.port, q.target, q.name, a.seconds, conc, &s);
      PrintRow(a.target.c_str(), q, conc, Summarise(std::move(s)), bytes);
    }
  }
  return 0;
}
