#include "sundial/net/line_connection.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <asio/connect.hpp>
#include <asio/io_context.hpp>
#include <asio/read.hpp>
#include <asio/write.hpp>
#include <gtest/gtest.h>

#include "sundial/common/mutex.h"

namespace sundial::net {
namespace {

using asio::ip::tcp;

struct Seen {
  Mutex mu;
  std::vector<std::string> calls GUARDED_BY(mu);  // one entry per HandleLines call
};

// Echoes each line back prefixed with "got:", closes on "quit".
class EchoHandler : public LineHandler {
 public:
  explicit EchoHandler(Seen* seen) : seen_(seen) {}
  Action HandleLines(std::string_view lines, ReplyBuffer* reply, size_t* consumed) override {
    *consumed = lines.size();
    {
      MutexLock lock(&seen_->mu);
      seen_->calls.emplace_back(lines);
    }
    size_t pos = 0;
    while (pos < lines.size()) {
      const size_t nl = lines.find('\n', pos);
      std::string_view line = lines.substr(pos, nl - pos);
      pos = nl + 1;
      if (line == "quit") return Action::kClose;
      reply->Append("got:" + std::string(line) + "\n");
    }
    return Action::kContinue;
  }

 private:
  Seen* seen_;
};

// Answers each line with 1000 bytes, like a `stats` command, and stops at
// a line while the replies are congested (as TelnetSession does).
class BigReplyHandler : public LineHandler {
 public:
  explicit BigReplyHandler(std::atomic<int>* handled) : handled_(handled) {}
  Action HandleLines(std::string_view lines, ReplyBuffer* reply, size_t* consumed) override {
    size_t pos = 0;
    while (pos < lines.size()) {
      if (reply->congested()) {
        *consumed = pos;
        return Action::kPause;
      }
      pos = lines.find('\n', pos) + 1;
      handled_->fetch_add(1);
      EXPECT_TRUE(reply->Append(std::string(999, 'r') + "\n"));
    }
    *consumed = lines.size();
    return Action::kContinue;
  }

 private:
  std::atomic<int>* handled_;
};

// A server side on a loopback port with one LineConnection per accept.
class LineServer {
 public:
  explicit LineServer(LineOptions options, bool big_replies = false)
      : options_(options),
        big_replies_(big_replies),
        acceptor_(ctx_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    Accept();
    thread_ = std::thread([this] { ctx_.run_for(std::chrono::seconds(20)); });
  }
  ~LineServer() {
    manager_.StopAll();
    ctx_.stop();
    thread_.join();
  }
  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  Seen& seen() { return seen_; }
  int handled() const { return handled_.load(); }
  size_t open_connections() const { return manager_.size(); }

 private:
  void Accept() {
    acceptor_.async_accept([this](const std::error_code& ec, tcp::socket s) {
      if (ec) return;
      std::unique_ptr<LineHandler> handler;
      if (big_replies_) {
        handler = std::make_unique<BigReplyHandler>(&handled_);
      } else {
        handler = std::make_unique<EchoHandler>(&seen_);
      }
      auto conn = std::make_shared<LineConnection>(std::move(s), std::move(handler), options_,
                                                   &manager_);
      conn->Start("");
      Accept();
    });
  }

  LineOptions options_;
  const bool big_replies_;
  ConnectionManager manager_{0};
  Seen seen_;
  std::atomic<int> handled_{0};
  asio::io_context ctx_;
  tcp::acceptor acceptor_;
  std::thread thread_;
};

tcp::socket Connect(asio::io_context& ctx, uint16_t port) {
  tcp::socket s(ctx);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  return s;
}

// Reads until EOF (or error); the server closes in every test below.
std::string ReadToEof(tcp::socket& s) {
  std::string out;
  char buf[4096];
  std::error_code ec;
  for (;;) {
    size_t n = s.read_some(asio::buffer(buf), ec);
    if (ec) break;
    out.append(buf, n);
  }
  return out;
}

TEST(LineConnection, RepliesAndClosesOnHandlerRequest) {
  LineOptions opt;
  LineServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string("a\r\nb\nquit\nnever\n")));
  EXPECT_EQ(ReadToEof(s), "got:a\r\ngot:b\n");
}

TEST(LineConnection, LinesOfOneReadArriveInOneCall) {
  LineOptions opt;
  LineServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  std::string many;
  for (int i = 0; i < 100; ++i) many += "line" + std::to_string(i) + "\n";
  asio::write(s, asio::buffer(many + "quit\n"));
  ReadToEof(s);
  Seen& seen = server.seen();
  MutexLock lock(&seen.mu);
  std::string all;
  for (const auto& c : seen.calls) all += c;
  EXPECT_EQ(all, many + "quit\n");
  // 500 bytes sent at once: far fewer calls than lines.
  EXPECT_LT(seen.calls.size(), 10u);
}

TEST(LineConnection, OverLongLineClosesWithoutReply) {
  LineOptions opt;
  opt.max_line_length = 1024;
  LineServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string(4096, 'x')));
  EXPECT_EQ(ReadToEof(s), "");
}

TEST(LineConnection, LastLineWithoutNewlineIsHandledAtEof) {
  LineOptions opt;
  LineServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  asio::write(s, asio::buffer(std::string("x\ny")));
  s.shutdown(tcp::socket::shutdown_send);
  EXPECT_EQ(ReadToEof(s), "got:x\ngot:y\n");
}

TEST(LineConnection, RepliesAreWrittenBeforeClosingAtEof) {
  LineOptions opt;
  LineServer server(opt);
  for (int i = 0; i < 20; ++i) {
    asio::io_context ctx;
    tcp::socket s = Connect(ctx, server.port());
    asio::write(s, asio::buffer(std::string("a\nb\n")));
    s.shutdown(tcp::socket::shutdown_send);  // EOF right behind the lines
    EXPECT_EQ(ReadToEof(s), "got:a\ngot:b\n");
  }
}

TEST(LineConnection, ReplyBufferCapDropsRepliesButKeepsReading) {
  LineOptions opt;
  opt.max_pending_reply = 4096;
  LineServer server(opt);
  asio::io_context ctx;
  tcp::socket s = Connect(ctx, server.port());
  // The client writes 16 MB of lines and reads nothing until the end: the
  // server must keep reading (else this write would block forever), and
  // drop most of the 18 MB of replies.
  std::string chunk;
  for (int i = 0; i < 1000; ++i) chunk += "0123456789012345678901234567890123456789\n";
  for (int i = 0; i < 400; ++i) asio::write(s, asio::buffer(chunk));
  asio::write(s, asio::buffer(std::string("quit\n")));
  const std::string got = ReadToEof(s);
  EXPECT_GT(got.size(), 0u);
  EXPECT_LT(got.size(), 12u << 20);
}

TEST(LineConnection, CongestedRepliesPauseReadingUntilTheClientReads) {
  LineOptions opt;
  opt.max_pending_reply = 16 * 1024;
  LineServer server(opt, /*big_replies=*/true);
  asio::io_context ctx;
  tcp::socket s(ctx);
  s.open(tcp::v4());
  s.set_option(asio::socket_base::receive_buffer_size(8192));
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  const int n = 20000;  // 20 MB of replies
  std::string lines;
  for (int i = 0; i < n; ++i) lines += "c\n";
  asio::write(s, asio::buffer(lines));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Not reading: handling stopped once the kernel buffers and the cap filled.
  const int stalled = server.handled();
  EXPECT_LT(stalled, n);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(server.handled(), stalled);
  // Reading resumes it; no reply was dropped.
  size_t got = 0;
  char buf[65536];
  while (got < static_cast<size_t>(n) * 1000) got += s.read_some(asio::buffer(buf));
  EXPECT_EQ(got, static_cast<size_t>(n) * 1000);
  EXPECT_EQ(server.handled(), n);
}

TEST(LineConnection, PausedClientThatReadsNothingIsClosedAfterTheWriteTimeout) {
  LineOptions opt;
  opt.max_pending_reply = 16 * 1024;
  opt.write_timeout = std::chrono::milliseconds(300);
  LineServer server(opt, /*big_replies=*/true);
  asio::io_context ctx;
  tcp::socket s(ctx);
  s.open(tcp::v4());
  s.set_option(asio::socket_base::receive_buffer_size(8192));
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
  std::string lines;
  for (int i = 0; i < 20000; ++i) lines += "c\n";
  asio::write(s, asio::buffer(lines));
  const auto start = std::chrono::steady_clock::now();
  while (server.open_connections() > 0 &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(server.open_connections(), 0u);
}

TEST(ReplyBuffer, BytesInFlightCountAgainstTheCap) {
  ReplyBuffer r(100);
  EXPECT_FALSE(r.congested());
  r.set_in_flight(60);
  EXPECT_TRUE(r.congested());
  EXPECT_FALSE(r.Append(std::string(50, 'x')));
  EXPECT_TRUE(r.Append(std::string(40, 'x')));
  EXPECT_EQ(r.unsent(), 100u);
}

TEST(ReplyBuffer, DropsWhatDoesNotFit) {
  ReplyBuffer r(10);
  EXPECT_TRUE(r.Append("12345"));
  EXPECT_FALSE(r.Append("123456"));
  EXPECT_TRUE(r.Append("12345"));
  EXPECT_EQ(r.dropped(), 1u);
  std::string out;
  r.TakeInto(&out);
  EXPECT_EQ(out, "1234512345");
  EXPECT_TRUE(r.empty());
}

}  // namespace
}  // namespace sundial::net
