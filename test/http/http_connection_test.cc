#include "sundial/http/http_connection.h"

#include <atomic>
#include <cctype>
#include <chrono>
#include <string>
#include <memory>
#include <thread>

#include <asio/io_context.hpp>
#include <asio/write.hpp>
#include <gtest/gtest.h>

#include "loopback_server.h"

namespace sundial::http {
namespace {

using asio::ip::tcp;

// A loopback HTTP server: one io_context thread, plus a helper thread that
// answers "/slow" requests later (as a worker pool would).
class TestServer {
 public:
  explicit TestServer(HttpOptions options = {}) {
    router_.Add({Method::kGet}, "/api/fast", [](Request, ResponderPtr r) {
      r->Send(Reply::Json(R"({"fast":1})"));
    });
    router_.Add({Method::kGet}, "/api/slow", [this](Request req, ResponderPtr r) {
      ++slow_started_;
      const int ms = std::stoi(std::string(req.params.Get("ms")));
      std::thread([r, ms] {
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        r->Send(Reply::Json("{\"slept\":" + std::to_string(ms) + "}"));
      }).detach();
    });
    router_.Add({Method::kGet}, "/api/stream", [](Request, ResponderPtr r) {
      std::thread([r] {
        Reply head;
        r->StartChunked(std::move(head));
        r->WriteChunk("[1,", nullptr);
        r->WriteChunk("2,", [r](bool ok) {
          if (ok) r->WriteChunk("3]", nullptr);
          r->Finish();
        });
      }).detach();
    });
    router_.Add({Method::kPost}, "/api/echo", [](Request req, ResponderPtr r) {
      r->Send(Reply::Json(std::move(req.body)));
    });
    // A body the handler encoded itself (stands in for a precompressed file).
    router_.Add({Method::kPost}, "/api/encoded", [](Request req, ResponderPtr r) {
      Reply reply = Reply::Json(std::move(req.body));
      reply.headers.emplace_back("Content-Encoding", "gzip");
      r->Send(std::move(reply));
    });
    // A handler that sets an X-Request-ID of its own (as the Influx routes do).
    router_.Add({Method::kGet}, "/api/own-id", [](Request, ResponderPtr r) {
      Reply reply = Reply::Json("{}");
      reply.headers.emplace_back("x-request-id", "from-handler");
      r->Send(std::move(reply));
    });
    server_ = std::make_unique<testing::LoopbackServer>(&router_, options,
                                                        std::chrono::seconds(20));
  }
  uint16_t port() const { return server_->port(); }
  void StopConnections() { server_->StopConnections(); }
  size_t open_connections() const { return server_->open_connections(); }
  // Waits (up to 10 s) until n /api/slow requests reached their handler.
  bool WaitSlowStarted(int n) const {
    for (int i = 0; i < 1000 && slow_started_.load() < n; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return slow_started_.load() >= n;
  }

 private:
  Router router_;
  std::unique_ptr<testing::LoopbackServer> server_;
  std::atomic<int> slow_started_{0};
};

// Sends `request` and reads until the server closes or `until` appears
// `count` times.
std::string Exchange(uint16_t port, const std::string& request, const std::string& until = "",
                     int count = 1) {
  asio::io_context ctx;
  tcp::socket s(ctx);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  asio::write(s, asio::buffer(request));
  std::string out;
  char buf[4096];
  std::error_code ec;
  for (;;) {
    if (!until.empty()) {
      int seen = 0;
      for (size_t p = out.find(until); p != std::string::npos; p = out.find(until, p + 1)) ++seen;
      if (seen >= count) break;
    }
    size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  return out;
}

TEST(HttpConnection, PipelinedRepliesKeepRequestOrder) {
  TestServer server;
  const std::string out = Exchange(server.port(),
                                   "GET /api/slow?ms=200 HTTP/1.1\r\n\r\n"
                                   "GET /api/fast HTTP/1.1\r\n\r\n"
                                   "GET /api/slow?ms=10 HTTP/1.1\r\nConnection: close\r\n\r\n");
  const size_t a = out.find("{\"slept\":200}");
  const size_t b = out.find("{\"fast\":1}");
  const size_t c = out.find("{\"slept\":10}");
  ASSERT_NE(a, std::string::npos) << out;
  ASSERT_NE(b, std::string::npos) << out;
  ASSERT_NE(c, std::string::npos) << out;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_NE(out.find("Connection: close"), std::string::npos);
}

TEST(HttpConnection, ChunkedStreamingFromAnotherThread) {
  TestServer server;
  const std::string out =
      Exchange(server.port(), "GET /api/stream HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("Transfer-Encoding: chunked"), std::string::npos) << out;
  EXPECT_NE(out.find("3\r\n[1,\r\n2\r\n2,\r\n2\r\n3]\r\n0\r\n\r\n"), std::string::npos) << out;
}

TEST(HttpConnection, BodyTooLargeIs413AndCloses) {
  HttpOptions opt;
  opt.limits.max_body_bytes = 1000;
  TestServer server(opt);
  const std::string out = Exchange(
      server.port(), "POST /api/echo HTTP/1.1\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'a'));
  EXPECT_EQ(out.rfind("HTTP/1.1 413 ", 0), 0u) << out;
  EXPECT_NE(out.find("\"code\":413"), std::string::npos);
}

TEST(HttpConnection, GzipResponseWhenAccepted) {
  TestServer server;
  const std::string body(5000, 'x');
  const std::string out =
      Exchange(server.port(), "POST /api/echo HTTP/1.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n"
                              "Content-Length: 5000\r\n\r\n" + body);
  EXPECT_NE(out.find("Content-Encoding: gzip"), std::string::npos) << out.substr(0, 300);
  EXPECT_EQ(out.find(body), std::string::npos);
}

TEST(HttpConnection, BodyWithItsOwnContentEncodingIsSentAsItIs) {
  TestServer server;
  const std::string body(5000, 'x');
  const std::string out = Exchange(
      server.port(), "POST /api/encoded HTTP/1.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n"
                     "Content-Length: 5000\r\n\r\n" + body);
  EXPECT_NE(out.find("Content-Length: 5000\r\n"), std::string::npos) << out.substr(0, 300);
  EXPECT_NE(out.find("\r\n\r\n" + body), std::string::npos);
  size_t encodings = 0;
  for (size_t p = out.find("Content-Encoding"); p != std::string::npos;
       p = out.find("Content-Encoding", p + 1)) {
    ++encodings;
  }
  EXPECT_EQ(encodings, 1u) << out.substr(0, 300);
}

TEST(HttpConnection, BareMethodNotAllowed) {
  TestServer server;
  const std::string out = Exchange(server.port(), "HEAD /api/fast HTTP/1.1\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 405 ", 0), 0u) << out;
  EXPECT_NE(out.find("Connection: close"), std::string::npos);
}

TEST(HttpConnection, ExpectContinue) {
  TestServer server;
  const std::string out = Exchange(
      server.port(), "POST /api/echo HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
      "100 Continue");
  EXPECT_EQ(out.rfind("HTTP/1.1 100 Continue\r\n\r\n", 0), 0u) << out;
}

}  // namespace
}  // namespace sundial::http

namespace sundial::http {
namespace {

TEST(HttpConnection, CorsAllowedOriginAndPreflight) {
  HttpOptions opt;
  opt.cors.domains = {"http://grafana.example"};
  opt.cors.allow_headers = "Content-Type";
  TestServer server(opt);
  std::string out = Exchange(server.port(),
                             "OPTIONS /api/fast HTTP/1.1\r\nOrigin: HTTP://grafana.example\r\n"
                             "Connection: close\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << out;
  EXPECT_NE(out.find("Access-Control-Allow-Origin: HTTP://grafana.example\r\n"), std::string::npos);
  EXPECT_NE(out.find("Access-Control-Allow-Methods: GET, POST, PUT, DELETE\r\n"), std::string::npos);
  EXPECT_NE(out.find("Access-Control-Allow-Headers: Content-Type\r\n"), std::string::npos);
  out = Exchange(server.port(), "GET /api/fast HTTP/1.1\r\nOrigin: http://grafana.example\r\n"
                                "Connection: close\r\n\r\n");
  EXPECT_NE(out.find("{\"fast\":1}"), std::string::npos) << out;
  EXPECT_NE(out.find("Access-Control-Allow-Origin: http://grafana.example"), std::string::npos);
}

TEST(HttpConnection, CorsOtherOriginGetsErrorBody) {
  HttpOptions opt;
  opt.cors.domains = {"http://grafana.example"};
  TestServer server(opt);
  std::string out = Exchange(server.port(), "GET /api/fast HTTP/1.1\r\nOrigin: http://evil\r\n"
                                            "Connection: close\r\n\r\n");
  EXPECT_EQ(out.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << out;
  EXPECT_NE(out.find("CORS domain not allowed"), std::string::npos) << out;
  EXPECT_EQ(out.find("{\"fast\":1}"), std::string::npos);
  // Without an Origin header nothing changes.
  out = Exchange(server.port(), "GET /api/fast HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("{\"fast\":1}"), std::string::npos) << out;
  EXPECT_EQ(out.find("Access-Control"), std::string::npos);
}

}  // namespace
}  // namespace sundial::http

namespace sundial::http {
namespace {

// The body of a chunked response (after the head), de-chunked.
std::string Dechunk(const std::string& response) {
  size_t pos = response.find("\r\n\r\n");
  if (pos == std::string::npos) return "";
  pos += 4;
  std::string body;
  for (;;) {
    const size_t eol = response.find("\r\n", pos);
    if (eol == std::string::npos) return body;
    const size_t n = std::stoul(response.substr(pos, eol - pos), nullptr, 16);
    if (n == 0) return body;
    body += response.substr(eol + 2, n);
    pos = eol + 2 + n + 2;
  }
}

TEST(HttpConnection, StreamedReplyIsGzippedWhenAccepted) {
  TestServer server;
  const std::string out = Exchange(
      server.port(), "GET /api/stream HTTP/1.1\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n");
  EXPECT_NE(out.find("Content-Encoding: gzip"), std::string::npos) << out;
  std::string plain;
  ASSERT_TRUE(Inflate(ContentCoding::kGzip, Dechunk(out), 1 << 20, &plain).ok());
  EXPECT_EQ(plain, "[1,2,3]");
}

}  // namespace
}  // namespace sundial::http

namespace sundial::http {
namespace {

TEST(HttpConnection, StopAnswersRequestsInFlightThenCloses) {
  TestServer server;
  asio::io_context ctx;
  tcp::socket s(ctx);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  asio::write(s, asio::buffer(std::string("GET /api/slow?ms=300 HTTP/1.1\r\n\r\n")));
  ASSERT_TRUE(server.WaitSlowStarted(1));
  server.StopConnections();  // as on SIGTERM, while the reply is being computed
  std::string out;
  char buf[4096];
  std::error_code ec;
  for (;;) {
    size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  EXPECT_NE(out.find("{\"slept\":300}"), std::string::npos) << out;
  for (int i = 0; i < 100 && server.open_connections() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(server.open_connections(), 0u);
}

}  // namespace
}  // namespace sundial::http

namespace sundial::http {
namespace {

// X-Request-ID comes back on every reply: plain, streamed, routing errors,
// pipelined ones each with its own; a value that could break the header
// block is not echoed.
TEST(HttpConnection, RequestIdIsEchoedOnEveryReply) {
  TestServer server;
  const std::string out = Exchange(
      server.port(),
      "GET /api/fast HTTP/1.1\r\nX-Request-ID: id-1\r\n\r\n"
      "GET /api/nowhere HTTP/1.1\r\nx-request-id: id 2\r\n\r\n"
      "GET /api/stream HTTP/1.1\r\nX-Request-ID: id-3\r\n\r\n"
      "GET /api/fast HTTP/1.1\r\nX-Request-ID: " + std::string(129, 'a') + "\r\n\r\n"
      "GET /api/fast HTTP/1.1\r\nX-Request-ID: caf\xc3\xa9\r\nConnection: close\r\n\r\n");
  const size_t one = out.find("X-Request-ID: id-1\r\n");
  const size_t two = out.find("X-Request-ID: id 2\r\n");
  const size_t three = out.find("X-Request-ID: id-3\r\n");
  ASSERT_NE(one, std::string::npos) << out;
  ASSERT_NE(two, std::string::npos) << out;
  ASSERT_NE(three, std::string::npos) << out;
  EXPECT_LT(one, two);
  EXPECT_LT(two, three);
  EXPECT_NE(out.find("404 Not Found"), std::string::npos);
  EXPECT_EQ(out.find("X-Request-ID: aaaa"), std::string::npos);
  EXPECT_EQ(out.find("caf"), std::string::npos);
  size_t replies = 0;
  for (size_t p = out.find("HTTP/1.1 "); p != std::string::npos; p = out.find("HTTP/1.1 ", p + 1)) {
    ++replies;
  }
  EXPECT_EQ(replies, 5u);
}

size_t CountNoCase(std::string hay, const std::string& needle) {
  for (char& c : hay) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

// A reply carries one X-Request-ID even when the handler set one: the
// client's echo wins; without a client id the handler's goes out.
TEST(HttpConnection, HandlerRequestIdNeverDuplicatesTheEcho) {
  TestServer server;
  const std::string echoed = Exchange(
      server.port(),
      "GET /api/own-id HTTP/1.1\r\nX-Request-ID: client-9\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(CountNoCase(echoed, "x-request-id:"), 1u) << echoed;
  EXPECT_NE(echoed.find("X-Request-ID: client-9\r\n"), std::string::npos) << echoed;
  const std::string own =
      Exchange(server.port(), "GET /api/own-id HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(CountNoCase(own, "x-request-id:"), 1u) << own;
  EXPECT_NE(own.find("x-request-id: from-handler\r\n"), std::string::npos) << own;
}

TEST(RequestId, OnlyShortPrintableAsciiIsEchoable) {
  EXPECT_TRUE(IsEchoableRequestId("abc-123"));
  EXPECT_TRUE(IsEchoableRequestId("a b"));
  EXPECT_TRUE(IsEchoableRequestId(std::string(kMaxRequestIdBytes, 'x')));
  EXPECT_FALSE(IsEchoableRequestId(""));
  EXPECT_FALSE(IsEchoableRequestId(std::string(kMaxRequestIdBytes + 1, 'x')));
  EXPECT_FALSE(IsEchoableRequestId("a\r\nSet-Cookie: x"));
  EXPECT_FALSE(IsEchoableRequestId("tab\there"));
  EXPECT_FALSE(IsEchoableRequestId("\x7f"));
  EXPECT_FALSE(IsEchoableRequestId("caf\xc3\xa9"));
}

}  // namespace
}  // namespace sundial::http
