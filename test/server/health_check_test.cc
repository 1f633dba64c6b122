#include "server/health_check.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

// A loopback listener that answers one connection with `reply` (or with
// nothing, holding the connection open, when reply is empty).
class OneShotServer {
 public:
  explicit OneShotServer(std::string reply) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 1);
    thread_ = std::thread([this, reply = std::move(reply)] {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      char buf[1024];
      request_.assign(buf, static_cast<size_t>(std::max<ssize_t>(0, recv(c, buf, sizeof(buf), 0))));
      if (!reply.empty()) {
        send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
      } else {
        recv(c, buf, sizeof(buf), 0);  // until the client gives up
      }
      close(c);
    });
  }
  ~OneShotServer() {
    if (thread_.joinable()) thread_.join();
    close(fd_);
  }
  // The request received. REQUIRES: the probe has finished.
  std::string TakeRequest() {
    thread_.join();
    return request_;
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  const int fd_;
  uint16_t port_ = 0;
  std::string request_;
  std::thread thread_;
};

TEST(CheckHealth, OkOnlyOn200) {
  {
    OneShotServer s("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
    EXPECT_TRUE(CheckHealth(s.url("/api/version"), std::chrono::seconds(5)).ok());
  }
  OneShotServer s("HTTP/1.1 503 Service Unavailable\r\n\r\n");
  const Status st = CheckHealth(s.url("/x"), std::chrono::seconds(5));
  EXPECT_EQ(st.code(), Status::Code::kIOError);
  EXPECT_NE(st.message().find("503"), std::string::npos) << st.message();
}

TEST(CheckHealth, SendsAGetForThePath) {
  OneShotServer s("HTTP/1.0 200 OK\r\n\r\n");
  ASSERT_TRUE(CheckHealth(s.url("/api/version?x=1"), std::chrono::seconds(5)).ok());
  const std::string request = s.TakeRequest();
  EXPECT_EQ(request.rfind("GET /api/version?x=1 HTTP/1.0\r\n", 0), 0u) << request;
}

TEST(CheckHealth, TimesOutOnASilentServer) {
  OneShotServer s("");
  const auto start = std::chrono::steady_clock::now();
  const Status st = CheckHealth(s.url("/"), std::chrono::milliseconds(300));
  EXPECT_EQ(st.code(), Status::Code::kIOError);
  EXPECT_NE(st.message().find("timed out"), std::string::npos) << st.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
}

TEST(CheckHealth, RejectsMalformedUrls) {
  for (const char* url : {"https://127.0.0.1/", "http://[::1/", "http://[localhost]:4242/",
                          "http://127.0.0.1:0/", "http://127.0.0.1:99999/", "127.0.0.1:4242"}) {
    EXPECT_EQ(CheckHealth(url, std::chrono::seconds(1)).code(), Status::Code::kInvalidArgument)
        << url;
  }
}

TEST(CheckHealth, ResolvesNamesAndFailsFastOnUnknownOnes) {
  OneShotServer s("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
  std::string url = s.url("/api/version");
  url.replace(url.find("127.0.0.1"), 9, "localhost");
  EXPECT_TRUE(CheckHealth(url, std::chrono::seconds(5)).ok()) << url;
  const auto start = std::chrono::steady_clock::now();
  const Status st = CheckHealth("http://nonexistent.invalid:4242/", std::chrono::seconds(5));
  EXPECT_TRUE(st.IsNotFound()) << st.ToString();
  EXPECT_NE(st.message().find("unknown host nonexistent.invalid"), std::string::npos)
      << st.message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

TEST(DefaultHealthUrl, LoopbackForWildcardBinds) {
  Options o = DefaultOptions();
  o.listener.port = 4343;
  o.listener.bind_address = "0.0.0.0";
  EXPECT_EQ(DefaultHealthUrl(o), "http://127.0.0.1:4343/api/version");
  o.listener.bind_address = "::";
  EXPECT_EQ(DefaultHealthUrl(o), "http://[::1]:4343/api/version");
  o.listener.bind_address = "127.0.0.2";
  EXPECT_EQ(DefaultHealthUrl(o), "http://127.0.0.2:4343/api/version");
}

}  // namespace
}  // namespace sundial::server
