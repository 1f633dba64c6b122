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
// p50, p99 (ms) and queries/s, plus the size of the first answer.
//
//   query_bench --target=sundial|vm --port=4242 [--seconds=5 --data-start=1700000000]
//               [--path=/any/get/target  (benchmarks that one request instead)]
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
  return q;
}

struct Result {
  double p50_ms, p99_ms, qps;
  size_t n;
};

Result RunOne(const Args& a, const Query& q, int threads) {
  std::vector<std::vector<double>> lat(static_cast<size_t>(threads));
  std::atomic<bool> stop{false};
  std::atomic<int> errors{0};
  std::vector<std::thread> ts;
  const auto t0 = Clock::now();
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      Client c(a.port);
      std::string body;
      for (int i = 0; i < 50; ++i) c.Get(q.target, &body);  // warm-up
      while (!stop.load(std::memory_order_relaxed)) {
        const auto s = Clock::now();
        if (c.Get(q.target, &body) != 200) ++errors;
        lat[static_cast<size_t>(t)].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - s).count());
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(a.seconds));
  stop = true;
  for (auto& th : ts) th.join();
  const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
  std::vector<double> all;
  for (auto& v : lat) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  if (errors > 0) std::fprintf(stderr, "query %s: %d non-200 answers\n", q.name, errors.load());
  Result r{};
  r.n = all.size();
  if (!all.empty()) {
    r.p50_ms = all[all.size() / 2];
    r.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  }
  r.qps = static_cast<double>(all.size()) / wall;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const size_t eq = s.find('=');
    const std::string k = s.substr(0, eq), v = eq == std::string::npos ? "" : s.substr(eq + 1);
    if (k == "--target") a.target = v;
    else if (k == "--port") a.port = std::atoi(v.c_str());
    else if (k == "--seconds") a.seconds = std::atof(v.c_str());
    else if (k == "--data-start") a.data_start = std::atoll(v.c_str());
    else if (k == "--path") a.path = v;
    else {
      std::fprintf(stderr, "usage: query_bench --target=sundial|vm --port=N [--seconds=5 "
                           "--data-start=1700000000]\n");
      return 2;
    }
  }
  std::printf("%-8s %-5s %-4s %10s %10s %10s %8s %8s\n", "target", "query", "conc", "p50_ms",
              "p99_ms", "qps", "n", "bytes");
  std::vector<Query> queries = MakeQueries(a);
  if (!a.path.empty()) queries = {{"path", a.path}};
  for (const Query& q : queries) {
    std::string body;
    int status;
    {
      Client c(a.port);
      status = c.Get(q.target, &body);
    }
    if (status != 200) {
      std::fprintf(stderr, "query %s answered %d: %.300s\n", q.name, status, body.c_str());
    }
    for (int conc : {1, 2}) {
      const Result r = RunOne(a, q, conc);
      std::printf("%-8s %-5s %-4d %10.3f %10.3f %10.0f %8zu %8zu\n", a.target.c_str(), q.name, conc,
                  r.p50_ms, r.p99_ms, r.qps, r.n, body.size());
      std::fflush(stdout);
    }
  }
  return 0;
}
