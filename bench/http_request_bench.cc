// HTTP request path benchmark: the server-side cost of one small keep-alive
// GET, in process, for two requests:
//   query    the /api/query request of the README's query benchmark (a):
//            127 bytes, a ~100-character percent-encoded query string
//   version  GET /api/version
//
// Two measurements per request:
//   parse+route  RequestParser::Parse on the request bytes, then
//                Router::Dispatch to a handler that answers a responder
//                which keeps nothing (no socket, no reply bytes)
//   connection   the whole HttpConnection path over a connected loopback
//                socket pair, on one thread: the client writes the request,
//                the io_context runs until the reply is back (read, parse,
//                route, handler, reply head, write, and the syscalls)
//
// The handlers do no real work: the query handler walks the decoded
// parameters and answers a fixed ~1.2 KB JSON body, the version handler a
// fixed ~200-byte one. Figures are ns per request (wall, and thread CPU
// for the connection, where the syscalls count), the median over --runs
// runs of --requests requests each, with the fastest run beside it.
//
//   build/bench/http_request_bench [--requests 200000] [--runs 7] [--only parse|connection]
#include <sys/socket.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include "sundial/http/http_connection.h"
#include "sundial/http/request_parser.h"
#include "sundial/http/router.h"
#include "sundial/net/session.h"

namespace {

using namespace sundial;
using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

constexpr char kQueryRequest[] =
    "GET /api/query?start=1700000000&end=1700003599&m=max%3A1m-max%3Acpu.usage_user"
    "%7Bhost%3Dhost_0%7D HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
constexpr char kVersionRequest[] = "GET /api/version HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

// A query answer of the size (a) gets: 60 one-minute points.
std::string QueryBody() {
  std::string b = R"([{"metric":"cpu.usage_user","tags":{"host":"host_0"},"aggregateTags":[],"dps":{)";
  for (int i = 0; i < 60; ++i) {
    if (i > 0) b += ',';
    b += '"' + std::to_string(1700000000 + 60 * i) + "\":" + std::to_string(50 + i % 17) + ".25";
  }
  b += "}}]";
  return b;
}

const char kVersionBody[] =
    R"({"short_revision":"","repo":"","host":"","version":"2.4.1","full_revision":"",)"
    R"("repo_status":"MODIFIED","user":"","branch":"","timestamp":"0","sundial":"0.1.0"})";

uint64_t g_sink = 0;  // keeps the handlers' reads of the request alive

// The server's routes (src/server/*_routes.cc), so matching walks as many.
void AddRoutes(http::Router* router, const std::string* query_body) {
  auto fixed_error = [](Request, ResponderPtr r) { r->Send(Reply::Error(501, "n/a")); };
  const http::MethodSet get_post = {Method::kGet, Method::kPost};
  router->Add({Method::kPost}, "/api/put", fixed_error);
  router->Add(get_post, "/api/stats", fixed_error);
  router->Add({Method::kGet}, "/metrics", fixed_error);
  router->Add({Method::kGet}, "/api/version",
              [](Request, ResponderPtr r) { r->Send(Reply::Json(kVersionBody)); });
  router->Add({Method::kGet, Method::kDelete}, "/api/dropcaches", fixed_error);
  router->Add({Method::kGet, Method::kPost, Method::kDelete}, "/api/query",
              [query_body](Request req, ResponderPtr r) {
                for (const auto& [k, v] : req.params.items()) g_sink += k.size() + v.size();
                r->Send(Reply::Json(*query_body));
              });
  router->Add(get_post, "/api/query/last", fixed_error);
  router->Add(get_post, "/api/suggest", fixed_error);
  router->Add(get_post, "/api/search", fixed_error);
  router->Add(get_post, "/api/annotation", fixed_error);
  router->Add(get_post, "/api/annotations", fixed_error);
  router->Add({Method::kGet}, "/api/aggregators", fixed_error);
  router->Add(get_post, "/api/config/filters", fixed_error);
}

// A responder that keeps nothing: parse+route without the connection.
class NullResponder : public http::Responder {
 public:
  void Send(Reply reply) override { g_sink += reply.body.size(); }
  void StartChunked(Reply) override {}
  void WriteChunk(std::string, std::function<void(bool)>) override {}
  void Finish() override {}
  bool cancelled() const override { return false; }
};

int64_t ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

int64_t WallNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct RunFigures {
  double wall_ns;
  double cpu_ns;
};

// Parses and dispatches `bytes` n times; ns per request.
RunFigures ParseRouteRun(const http::Router& router, const std::string& bytes, int n) {
  http::RequestParser parser(http::ParserLimits{});
  const ResponderPtr responder = std::make_shared<NullResponder>();
  const int64_t w0 = WallNs();
  const int64_t c0 = ThreadCpuNs();
  for (int i = 0; i < n; ++i) {
    Request request;
    size_t used = 0;
    if (parser.Parse(bytes.data(), bytes.size(), &used, &request) !=
            http::RequestParser::Result::kRequest ||
        used != bytes.size()) {
      fprintf(stderr, "parse failed\n");
      exit(1);
    }
    router.Dispatch(std::move(request), responder);
  }
  return {double(WallNs() - w0) / n, double(ThreadCpuNs() - c0) / n};
}

// One HttpConnection on a loopback socket pair, driven from this thread.
class LoopbackConnection {
 public:
  explicit LoopbackConnection(const http::Router* router)
      : acceptor_(ctx_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)),
        client_(ctx_) {
    client_.connect(acceptor_.local_endpoint());
    asio::ip::tcp::socket server = acceptor_.accept();
    client_.set_option(asio::ip::tcp::no_delay(true));
    server.set_option(asio::ip::tcp::no_delay(true));
    std::make_shared<http::HttpConnection>(std::move(server), router, http::HttpOptions{},
                                           &manager_)
        ->Start("");
  }
  ~LoopbackConnection() {
    manager_.StopAll();
    ctx_.run_for(std::chrono::milliseconds(50));
  }

  // Sends the request and runs the server until the whole reply is back;
  // returns the reply's size. expect == 0: read up to the end of the body
  // as Content-Length says (the first exchange).
  size_t Exchange(const std::string& request, size_t expect) {
    const int fd = client_.native_handle();
    if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size())) {
      fprintf(stderr, "send failed\n");
      exit(1);
    }
    size_t got = 0;
    reply_.clear();
    for (;;) {
      char buf[8192];
      const ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (n > 0) {
        got += static_cast<size_t>(n);
        if (expect == 0) reply_.append(buf, static_cast<size_t>(n));
      }
      if (expect != 0 ? got >= expect : Complete()) return got;
      if (n <= 0 && ctx_.run_one_for(std::chrono::seconds(5)) == 0) {
        fprintf(stderr, "no reply\n");
        exit(1);
      }
    }
  }
  const std::string& reply() const { return reply_; }

 private:
  bool Complete() const {
    const size_t end = reply_.find("\r\n\r\n");
    const size_t cl = reply_.find("Content-Length: ");
    if (end == std::string::npos || cl == std::string::npos) return false;
    return reply_.size() >= end + 4 + std::strtoul(reply_.c_str() + cl + 16, nullptr, 10);
  }

  asio::io_context ctx_{1};
  net::ConnectionManager manager_{0};
  asio::ip::tcp::acceptor acceptor_;
  asio::ip::tcp::socket client_;
  std::string reply_;
};

RunFigures ConnectionRun(LoopbackConnection* conn, const std::string& bytes, size_t expect,
                         int n) {
  const int64_t w0 = WallNs();
  const int64_t c0 = ThreadCpuNs();
  for (int i = 0; i < n; ++i) conn->Exchange(bytes, expect);
  return {double(WallNs() - w0) / n, double(ThreadCpuNs() - c0) / n};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Print(const char* what, const std::vector<RunFigures>& runs) {
  std::vector<double> wall, cpu;
  for (const RunFigures& r : runs) {
    wall.push_back(r.wall_ns);
    cpu.push_back(r.cpu_ns);
  }
  printf("%-22s wall %7.0f ns/req (best %7.0f)   thread cpu %7.0f ns/req (best %7.0f)\n", what,
         Median(wall), *std::min_element(wall.begin(), wall.end()), Median(cpu),
         *std::min_element(cpu.begin(), cpu.end()));
}

}  // namespace

int main(int argc, char** argv) {
  int requests = 200000;
  int runs = 7;
  std::string only;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--requests") == 0) {
      requests = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--runs") == 0) {
      runs = atoi(argv[i + 1]);
    } else if (strcmp(argv[i], "--only") == 0) {
      only = argv[i + 1];
    } else {
      fprintf(stderr, "usage: %s [--requests N] [--runs N] [--only parse|connection]\n", argv[0]);
      return 2;
    }
  }
  if (requests <= 0 || runs <= 0) return 2;
  const std::string query_body = QueryBody();
  http::Router router;
  AddRoutes(&router, &query_body);

  struct Case {
    const char* name;
    std::string bytes;
  };
  const Case cases[] = {{"query", kQueryRequest}, {"version", kVersionRequest}};
  for (const Case& c : cases) {
    if (only != "connection") {
      std::vector<RunFigures> pr;
      ParseRouteRun(router, c.bytes, requests / 10);  // warm-up
      for (int r = 0; r < runs; ++r) pr.push_back(ParseRouteRun(router, c.bytes, requests));
      Print((std::string(c.name) + " parse+route").c_str(), pr);
    }
    if (only == "parse") continue;

    LoopbackConnection conn(&router);
    const size_t expect = conn.Exchange(c.bytes, 0);
    if (conn.reply().compare(0, 15, "HTTP/1.1 200 OK") != 0) {
      fprintf(stderr, "unexpected reply: %s\n", conn.reply().c_str());
      return 1;
    }
    const int conn_requests = std::max(1, requests / 4);
    ConnectionRun(&conn, c.bytes, expect, conn_requests / 10);  // warm-up
    std::vector<RunFigures> cr;
    for (int r = 0; r < runs; ++r) cr.push_back(ConnectionRun(&conn, c.bytes, expect, conn_requests));
    Print((std::string(c.name) + " connection").c_str(), cr);
  }
  if (g_sink == 42) printf("\n");
  return 0;
}
