// Responder calls from other threads (http_connection_handoff.cc): replies
// answered on the I/O thread, on workers, streams started on one and
// continued on the other, dropped responders, all pipelined on several
// connections at once, and a server stop in the middle of it. Randomised:
// the seed is printed and SUNDIAL_SEED replays one.
#include <poll.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <asio/io_context.hpp>
#include <asio/write.hpp>
#include <gtest/gtest.h>

#include "common/thread_executor.h"
#include "loopback_server.h"
#include "sundial/http/http_connection.h"

namespace sundial::http {
namespace {

using asio::ip::tcp;

uint32_t TestSeed() {
  const char* env = std::getenv("SUNDIAL_SEED");
  const uint32_t seed =
      env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : std::random_device{}();
  std::printf("SUNDIAL_SEED=%u\n", seed);
  return seed;
}

// The body every reply to /api/r?id=<id> carries, whichever way it is sent.
std::string ExpectedBody(const std::string& id) { return id + ":abc"; }

// Answers /api/r?id=<id>&k=<kind> in one of five ways:
//   0 Send on the I/O thread         1 Send from a worker
//   2 StartChunked on the I/O thread, chunks and Finish from a worker
//   3 a stream from a worker, each chunk after the last one was written
//   4 the responder is dropped on a worker without an answer (500)
class HandoffServer {
 public:
  HandoffServer() {
    router_.Add({Method::kGet}, "/api/r", [this](Request req, ResponderPtr r) { Handle(req, r); });
    server_ = std::make_unique<testing::LoopbackServer>(&router_, HttpOptions{},
                                                        std::chrono::seconds(60));
  }
  // Stops the server first: no connection is left for a worker's reply.
  ~HandoffServer() { server_.reset(); }
  uint16_t port() const { return server_->port(); }
  void StopConnections() { server_->StopConnections(); }
  size_t open_connections() const { return server_->open_connections(); }

 private:
  void Handle(const Request& req, const ResponderPtr& r) {
    const std::string id(req.params.Get("id"));
    switch (std::stoi(std::string(req.params.Get("k")))) {
      case 0:
        r->Send(Reply::Json(ExpectedBody(id)));
        return;
      case 1:
        workers_.Post([r, id] { r->Send(Reply::Json(ExpectedBody(id))); });
        return;
      case 2:
        r->StartChunked(Reply::Json(id + ":"));
        workers_.Post([r] {
          r->WriteChunk("a");
          r->WriteChunk("b");
          r->WriteChunk("c");
          r->Finish();
        });
        return;
      case 3:
        workers_.Post([r, id] {
          r->StartChunked(Reply::Json(id + ":"));
          r->WriteChunk("a", [r](bool ok) {
            if (!ok) return r->Finish();
            r->WriteChunk("b", nullptr);
            r->WriteChunk("c", [r](bool) { r->Finish(); });
          });
        });
        return;
      default:
        workers_.Post([held = r]() mutable { held.reset(); });
        return;
    }
  }

  Router router_;
  std::unique_ptr<testing::LoopbackServer> server_;
  sundial::testing::ThreadExecutor workers_{3};  // destroyed first: no worker touches a reply after
};

// Takes one complete response off the front of *in: its status and its
// (de-chunked) body. False while incomplete.
bool TakeResponse(std::string* in, int* status, std::string* body) {
  const size_t head_end = in->find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  const std::string head = in->substr(0, head_end + 2);
  *status = head.size() > 12 ? std::atoi(head.c_str() + 9) : 0;
  body->clear();
  size_t pos = head_end + 4;
  const size_t cl = head.find("Content-Length: ");
  if (cl != std::string::npos) {
    const size_t n = std::strtoul(head.c_str() + cl + 16, nullptr, 10);
    if (in->size() < pos + n) return false;
    *body = in->substr(pos, n);
    in->erase(0, pos + n);
    return true;
  }
  if (head.find("Transfer-Encoding: chunked\r\n") == std::string::npos) return false;
  for (;;) {
    const size_t eol = in->find("\r\n", pos);
    if (eol == std::string::npos) return false;
    const size_t n = std::strtoul(in->c_str() + pos, nullptr, 16);
    if (in->size() < eol + 2 + n + 2) return false;
    if (n == 0) {
      in->erase(0, eol + 4);
      return true;
    }
    body->append(*in, eol + 2, n);
    pos = eol + 2 + n + 2;
  }
}

tcp::socket Connect(asio::io_context* ctx, uint16_t port) {
  tcp::socket s(*ctx);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  return s;
}

// Appends what arrives within 10 s (a lost reply fails the test instead of
// hanging it). Returns the byte count, 0 at end of stream, -1 on error or
// timeout.
ssize_t ReadSome(tcp::socket& s, std::string* in) {
  pollfd p{s.native_handle(), POLLIN, 0};
  if (::poll(&p, 1, 10000) != 1) return -1;
  char buf[8192];
  const ssize_t n = ::recv(s.native_handle(), buf, sizeof(buf), 0);
  if (n > 0) in->append(buf, static_cast<size_t>(n));
  return n;
}

// One client connection: sends `total` requests in pipelined bursts and
// checks that every reply comes back, in order, with the right body.
// Returns a description of the first problem, or "".
std::string RunClient(uint16_t port, uint32_t seed, int total) {
  std::mt19937 rng(seed);
  asio::io_context ctx;
  tcp::socket s = Connect(&ctx, port);
  std::string in;
  int sent = 0;
  int answered = 0;
  std::deque<std::pair<std::string, int>> expected;  // id, kind
  while (answered < total) {
    if (expected.empty() || (sent < total && rng() % 3 == 0)) {
      const int burst = std::min<int>(total - sent, 1 + static_cast<int>(rng() % 24));
      std::string out;
      for (int i = 0; i < burst; ++i, ++sent) {
        const int kind = static_cast<int>(rng() % 5);
        const std::string id = std::to_string(seed % 1000) + "-" + std::to_string(sent);
        out += "GET /api/r?id=" + id + "&k=" + std::to_string(kind) + " HTTP/1.1\r\n\r\n";
        expected.emplace_back(id, kind);
      }
      std::error_code ec;
      asio::write(s, asio::buffer(out), ec);
      if (ec) return "write: " + ec.message();
    }
    if (ReadSome(s, &in) <= 0) {
      return "no more bytes after " + std::to_string(answered) + " replies";
    }
    int status = 0;
    std::string body;
    while (!expected.empty() && TakeResponse(&in, &status, &body)) {
      const auto [id, kind] = expected.front();
      expected.pop_front();
      ++answered;
      if (kind == 4) {
        if (status != 500 || body.find("dropped without a reply") == std::string::npos) {
          return "request " + id + ": " + std::to_string(status) + " " + body;
        }
      } else if (status != 200 || body != ExpectedBody(id)) {
        return "request " + id + " (kind " + std::to_string(kind) + "): " +
               std::to_string(status) + " " + body;
      }
    }
  }
  return in.empty() ? "" : "extra bytes: " + in;
}

TEST(HttpConnectionHandoff, RepliesFromAnyThreadStayInOrderAndWhole) {
  const uint32_t seed = TestSeed();
  HandoffServer server;
  constexpr int kClients = 4;
  constexpr int kRequests = 600;
  std::vector<std::string> problems(kClients);
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] { problems[c] = RunClient(server.port(), seed + c, kRequests); });
  }
  for (auto& t : clients) t.join();
  for (int c = 0; c < kClients; ++c) EXPECT_EQ(problems[c], "") << "client " << c;
}

// A stop while replies are still being produced on workers: every request
// sent before it is answered whole, then the connection closes.
TEST(HttpConnectionHandoff, StopWhileWorkersAnswer) {
  const uint32_t seed = TestSeed();
  std::mt19937 rng(seed);
  for (int round = 0; round < 20; ++round) {
    HandoffServer server;
    asio::io_context ctx;
    tcp::socket s = Connect(&ctx, server.port());
    std::string out;
    std::vector<std::pair<std::string, int>> expected;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const int kind = static_cast<int>(rng() % 4);  // answered ones
      expected.emplace_back(std::to_string(i), kind);
      out += "GET /api/r?id=" + std::to_string(i) + "&k=" + std::to_string(kind) +
             " HTTP/1.1\r\n\r\n";
    }
    asio::write(s, asio::buffer(out));
    // Wait for the first reply byte, so the requests were read.
    std::string in;
    ASSERT_GT(ReadSome(s, &in), 0);
    server.StopConnections();
    ssize_t got = 0;
    while ((got = ReadSome(s, &in)) > 0) {
    }
    EXPECT_EQ(got, 0) << "the connection did not close";
    // The requests read before the stop are answered in order, whole.
    int status = 0;
    std::string body;
    size_t answered = 0;
    while (TakeResponse(&in, &status, &body)) {
      ASSERT_LT(answered, expected.size());
      EXPECT_EQ(status, 200);
      EXPECT_EQ(body, ExpectedBody(expected[answered].first)) << "round " << round;
      ++answered;
    }
    EXPECT_GE(answered, 1u);
    EXPECT_EQ(in, "") << "round " << round;
    for (int i = 0; i < 200 && server.open_connections() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(server.open_connections(), 0u);
  }
}

}  // namespace
}  // namespace sundial::http
