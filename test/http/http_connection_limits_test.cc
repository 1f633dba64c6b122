// HttpConnection's bounds on one client: receive deadline (head and body),
// idle timeout, output cap with producer pausing, write timeout.
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include <asio/io_context.hpp>
#include <asio/write.hpp>
#include <gtest/gtest.h>

#include "loopback_server.h"
#include "sundial/http/http_connection.h"

namespace sundial::http {
namespace {

using asio::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr size_t kPiece = 16 * 1024;
constexpr int kPieces = 1000;  // 16 MB in all: more than loopback's socket buffers

// A streaming route whose producer writes the next piece only from the
// previous piece's callback (as the query sink does), counting pieces.
class StreamServer {
 public:
  explicit StreamServer(HttpOptions options) {
    router_.Add({Method::kGet}, "/api/stream", [this](Request, ResponderPtr r) {
      r->StartChunked(Reply::Json(""));
      Next(r, 0);
    });
    router_.Add({Method::kGet}, "/api/fast", [](Request, ResponderPtr r) {
      r->Send(Reply::Json("{\"fast\":1}"));
    });
    server_ = std::make_unique<testing::LoopbackServer>(&router_, options, std::chrono::seconds(30));
  }
  uint16_t port() const { return server_->port(); }
  int produced() const { return produced_.load(); }
  size_t open_connections() const { return server_->open_connections(); }

 private:
  void Next(const ResponderPtr& r, int i) {
    if (i == kPieces) {
      r->Finish();
      return;
    }
    produced_.fetch_add(1);
    r->WriteChunk(std::string(kPiece, 'a' + i % 26), [this, r, i](bool ok) {
      if (ok) Next(r, i + 1);
    });
  }

  Router router_;
  std::atomic<int> produced_{0};
  std::unique_ptr<testing::LoopbackServer> server_;  // last: stops first
};

tcp::socket Connect(asio::io_context& ctx, uint16_t port, int rcvbuf = 0) {
  tcp::socket s(ctx);
  s.open(tcp::v4());
  if (rcvbuf > 0) s.set_option(asio::socket_base::receive_buffer_size(rcvbuf));
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  return s;
}

// Reads until EOF or error, for at most `limit`; the bytes read.
std::string ReadToClose(tcp::socket& s, std::chrono::seconds limit, bool* closed) {
  std::string out;
  char buf[65536];
  const Clock::time_point end = Clock::now() + limit;
  *closed = false;
  s.non_blocking(true);
  while (Clock::now() < end) {
    std::error_code ec;
    const size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec == asio::error::would_block) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (ec) {
      *closed = true;
      break;
    }
    out.append(buf, n);
  }
  return out;
}

TEST(HttpConnectionLimits, HalfSentHeadGets408AtTheDeadline) {
  HttpOptions opt;
  opt.request_timeout = std::chrono::milliseconds(300);
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  const Clock::time_point start = Clock::now();
  asio::write(s, asio::buffer(std::string("GET /api/fast HTTP/1.1\r\nHost: x\r\n")));
  bool closed = false;
  const std::string out = ReadToClose(s, std::chrono::seconds(5), &closed);
  const auto took = Clock::now() - start;
  EXPECT_TRUE(closed);
  EXPECT_EQ(out.rfind("HTTP/1.1 408 ", 0), 0u) << out;
  EXPECT_GE(took, std::chrono::milliseconds(290));
  EXPECT_LT(took, std::chrono::seconds(3));
}

TEST(HttpConnectionLimits, TrickledHeadDoesNotExtendTheDeadline) {
  HttpOptions opt;
  opt.request_timeout = std::chrono::milliseconds(400);
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string("GET /api/fast HTTP/1.1\r\n")));
  const Clock::time_point start = Clock::now();
  std::error_code ec;
  std::string got;
  s.non_blocking(true);
  // One header byte every 50 ms: traffic, but the head never completes.
  for (int i = 0; i < 40 && !ec && got.empty(); ++i) {
    asio::write(s, asio::buffer("X", 1), ec);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    char buf[4096];
    std::error_code read_ec;
    const size_t n = s.read_some(asio::buffer(buf), read_ec);
    if (!read_ec) got.append(buf, n);
  }
  EXPECT_EQ(got.rfind("HTTP/1.1 408 ", 0), 0u) << got;
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(1500));
}

TEST(HttpConnectionLimits, BodyBelowTheMinimumRateGets408) {
  HttpOptions opt;
  opt.request_timeout = std::chrono::milliseconds(300);
  opt.body_min_rate = 1000;  // bytes/s
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string(
                     "POST /api/fast HTTP/1.1\r\nContent-Length: 100000\r\n\r\n" +
                     std::string(500, 'a'))));  // buys 0.5 s more, then nothing
  const Clock::time_point start = Clock::now();
  bool closed = false;
  const std::string out = ReadToClose(s, std::chrono::seconds(5), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(out.rfind("HTTP/1.1 408 ", 0), 0u) << out;
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(700));
}

TEST(HttpConnectionLimits, CompleteRequestsAreNotTimed) {
  HttpOptions opt;
  opt.request_timeout = std::chrono::milliseconds(200);
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  // A keep-alive connection that waits between whole requests stays open.
  for (int i = 0; i < 3; ++i) {
    asio::write(s, asio::buffer(std::string("GET /api/fast HTTP/1.1\r\n\r\n")));
    char buf[4096];
    std::string got;
    while (got.find("{\"fast\":1}") == std::string::npos) {
      got.append(buf, s.read_some(asio::buffer(buf)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_EQ(server.open_connections(), 1u);
}

TEST(HttpConnectionLimits, IdleKeepAliveConnectionIsClosed) {
  HttpOptions opt;
  opt.idle_timeout = std::chrono::milliseconds(300);
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string("GET /api/fast HTTP/1.1\r\n\r\n")));
  const Clock::time_point start = Clock::now();
  bool closed = false;
  const std::string out = ReadToClose(s, std::chrono::seconds(5), &closed);
  EXPECT_TRUE(closed);
  EXPECT_NE(out.find("{\"fast\":1}"), std::string::npos);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(250));
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(3));
}

TEST(HttpConnectionLimits, OutputCapPausesTheProducerUntilTheClientReads) {
  HttpOptions opt;
  opt.max_unsent = 64 * 1024;
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port(), /*rcvbuf=*/8192);
  asio::write(s, asio::buffer(std::string("GET /api/stream HTTP/1.1\r\nConnection: close\r\n\r\n")));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  // Not reading: production stops once the kernel buffers and the cap are
  // full, far short of the whole 16 MB.
  const int stalled = server.produced();
  EXPECT_LT(stalled, kPieces);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(server.produced(), stalled);
  // Reading resumes it, and every piece arrives.
  bool closed = false;
  const std::string out = ReadToClose(s, std::chrono::seconds(20), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(server.produced(), kPieces);
  EXPECT_NE(out.find("0\r\n\r\n", out.size() - 5), std::string::npos);
  EXPECT_GT(out.size(), kPiece * kPieces);
}

TEST(HttpConnectionLimits, PipelinedStreamsBothCompleteUnderTheCap) {
  // The second reply may fill the cap while the first is still being
  // produced; the first must still go on (only bytes ahead of it count).
  HttpOptions opt;
  opt.max_unsent = 64 * 1024;
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string("GET /api/stream HTTP/1.1\r\n\r\n"
                                          "GET /api/stream HTTP/1.1\r\nConnection: close\r\n\r\n")));
  bool closed = false;
  const std::string out = ReadToClose(s, std::chrono::seconds(20), &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(server.produced(), 2 * kPieces);
  EXPECT_GT(out.size(), 2 * kPiece * kPieces);
}

TEST(HttpConnectionLimits, ClientThatTakesNothingIsClosedAfterTheWriteTimeout) {
  HttpOptions opt;
  opt.max_unsent = 64 * 1024;
  opt.write_timeout = std::chrono::milliseconds(400);
  StreamServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port(), /*rcvbuf=*/8192);
  asio::write(s, asio::buffer(std::string("GET /api/stream HTTP/1.1\r\n\r\n")));
  const Clock::time_point start = Clock::now();
  while (server.produced() == 0 && Clock::now() - start < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(server.open_connections(), 1u);
  while (server.open_connections() > 0 && Clock::now() - start < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server.open_connections(), 0u);
  EXPECT_GE(Clock::now() - start, std::chrono::milliseconds(400));
  EXPECT_LT(server.produced(), kPieces);
}

}  // namespace
}  // namespace sundial::http
