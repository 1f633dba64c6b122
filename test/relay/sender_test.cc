#include "relay/sender.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "relay/loopback_upstream.h"

namespace sundial::relay {
namespace {

using std::chrono::milliseconds;

const SeriesNames kM{"m", {{"h", "a"}}, {}};

TEST(Sender, ClassifiesReplies) {
  testing::LoopbackUpstream up(true, {"HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\nbusy",
                                      "HTTP/1.1 302 Found\r\nContent-Length: 0\r\n\r\n",
                                      "HTTP/1.1 400 Bad\r\nContent-Length: 3\r\n\r\nbad",
                                      "HTTP/1.1 429 Slow down\r\nContent-Length: 0\r\n\r\n"});
  TargetSpec spec;
  ASSERT_TRUE(ParseTarget("http://127.0.0.1:" + std::to_string(up.port()) + "?bearer=tok", &spec).ok());
  Sender sender(spec, milliseconds(2000));
  const RelayPoint p{&kM, 1000, Value::Int(1)};
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_EQ(error, "HTTP 503: busy");
  EXPECT_TRUE(sender.connected());
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kRejected);
  EXPECT_EQ(error, "HTTP 400: bad");
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered);
  const std::vector<std::string> bodies = up.bodies();
  ASSERT_EQ(bodies.size(), 5u);
  EXPECT_EQ(bodies[4], "[{\"metric\":\"m\",\"timestamp\":1000,\"value\":1,\"tags\":{\"h\":\"a\"}}]");
}

TEST(Sender, OnlyBadDataAnswersSkipTheBatch) {
  // Bad data: skipped.
  EXPECT_EQ(ClassifyHttpStatus(400), SendOutcome::kRejected);
  EXPECT_EQ(ClassifyHttpStatus(422), SendOutcome::kRejected);
  // Too large: split.
  EXPECT_EQ(ClassifyHttpStatus(413), SendOutcome::kTooLarge);
  // A wrong token, path, method or other 4xx: the data is kept.
  for (int code : {401, 402, 403, 404, 405, 406, 409, 410, 411, 415, 418, 451, 499}) {
    EXPECT_EQ(ClassifyHttpStatus(code), SendOutcome::kTargetFault) << code;
  }
  // Transient.
  for (int code : {100, 301, 302, 307, 408, 429, 500, 502, 503, 504, 599, 600}) {
    EXPECT_EQ(ClassifyHttpStatus(code), SendOutcome::kRetry) << code;
  }
  for (int code : {200, 201, 202, 204, 299}) {
    EXPECT_EQ(ClassifyHttpStatus(code), SendOutcome::kDelivered) << code;
  }
}

TEST(Sender, AuthAndPathErrorsKeepTheData) {
  testing::LoopbackUpstream up(true, {"HTTP/1.1 401 Unauthorized\r\nContent-Length: 7\r\n\r\nexpired",
                                      "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n",
                                      "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
                                      "HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n",
                                      "HTTP/1.1 413 Too Large\r\nContent-Length: 0\r\n\r\n",
                                      "HTTP/1.1 422 Unprocessable\r\nContent-Length: 3\r\n\r\nnan"});
  TargetSpec spec;
  ASSERT_TRUE(ParseTarget("http://127.0.0.1:" + std::to_string(up.port()), &spec).ok());
  Sender sender(spec, milliseconds(2000));
  const RelayPoint p{&kM, 1000, Value::Int(1)};
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kTargetFault);
  EXPECT_EQ(error, "HTTP 401: expired");
  EXPECT_TRUE(sender.connected());  // the upstream answered: it is the request that is wrong
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kTargetFault);
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kTargetFault);
  EXPECT_EQ(error, "HTTP 404: ");
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kTargetFault);
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kTooLarge);
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kRejected);
  EXPECT_EQ(error, "HTTP 422: nan");
  EXPECT_EQ(sender.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered);
  EXPECT_EQ(up.bodies().size(), 7u);
}

TEST(Sender, UnreachableAndGarbageAreRetried) {
  TargetSpec spec;
  {
    testing::LoopbackUpstream gone(true);
    ASSERT_TRUE(ParseTarget("http://127.0.0.1:" + std::to_string(gone.port()), &spec).ok());
  }  // closed: connections are refused
  Sender refused(spec, milliseconds(500));
  const RelayPoint p{&kM, 1000, Value::Int(1)};
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(refused.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_FALSE(refused.connected());
  EXPECT_NE(error.find("connect"), std::string::npos);

  testing::LoopbackUpstream garbage(true, {"SSH-2.0-nope\r\n\r\n"});
  ASSERT_TRUE(ParseTarget("http://127.0.0.1:" + std::to_string(garbage.port()), &spec).ok());
  Sender s(spec, milliseconds(500));
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_NE(error.find("response"), std::string::npos);
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered);  // reconnects
}

TEST(Sender, TelnetReconnectsAfterTheUpstreamCloses) {
  const RelayPoint p{&kM, 2000, Value::Float(1.5)};
  size_t left_out = 0;
  std::string error;
  TargetSpec spec;
  testing::LoopbackUpstream up(false);
  ASSERT_TRUE(ParseTarget("telnet://127.0.0.1:" + std::to_string(up.port()), &spec).ok());
  Sender s(spec, milliseconds(1000));
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered);
  for (int i = 0; i < 100 && up.bytes().empty(); ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_EQ(up.bytes(), "put m 2 1.5 h=a\n");
}

// A listener whose connections are accepted but never read, with a small
// receive buffer: the kernel acknowledges only what fits in it.
class DeafUpstream {
 public:
  DeafUpstream() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int small = 4096;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    ::listen(fd_, 4);
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~DeafUpstream() {
    if (conn_ >= 0) ::close(conn_);
    ::close(fd_);
  }
  uint16_t port() const { return port_; }
  // Accepts the connection waiting (the sender's).
  void Accept() { conn_ = ::accept(fd_, nullptr, nullptr); }
  // Reads until the sender's reset: the bytes read and the error that ended it.
  std::string ReadUntilError(int* err) {
    std::string got;
    char buf[65536];
    for (;;) {
      const ssize_t n = ::recv(conn_, buf, sizeof(buf), 0);
      if (n <= 0) {
        *err = n < 0 ? errno : 0;
        return got;
      }
      got.append(buf, static_cast<size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  int conn_ = -1;
  uint16_t port_ = 0;
};

TEST(Sender, TelnetBatchIsDeliveredOnlyOnceTheUpstreamAcknowledgedIt) {
  DeafUpstream up;
  TargetSpec spec;
  ASSERT_TRUE(ParseTarget("telnet://127.0.0.1:" + std::to_string(up.port()), &spec).ok());
  Sender s(spec, milliseconds(300));
  // Far more than the upstream's receive buffer takes.
  std::vector<RelayPoint> points;
  for (int i = 0; i < 20000; ++i) points.push_back(RelayPoint{&kM, 1000 * (i + 1), Value::Int(i)});
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(s.Send(points.data(), points.size(), &left_out, &error), SendOutcome::kRetry);
  EXPECT_NE(error.find("did not acknowledge"), std::string::npos) << error;
  // The connection was reset, not closed: the upstream reads what it has,
  // then an error, never an end of stream after a cut-off line.
  up.Accept();
  int err = 0;
  const std::string got = up.ReadUntilError(&err);
  EXPECT_EQ(err, ECONNRESET);
  EXPECT_LT(got.size(), 20000u * 14);
  // A small batch the upstream's kernel takes is delivered.
  DeafUpstream quiet;
  ASSERT_TRUE(ParseTarget("telnet://127.0.0.1:" + std::to_string(quiet.port()), &spec).ok());
  Sender t(spec, milliseconds(2000));
  EXPECT_EQ(t.Send(points.data(), 3, &left_out, &error), SendOutcome::kDelivered) << error;
}

// sundiald's reply to `version` (src/server/version.cc).
constexpr char kVersionReply[] =
    "net.opentsdb.tools 2.4.0 built at revision 1a2b3c4 (MINT)\n"
    "Built on 2024-01-01 by sundial@edge:sundial-0.9.0\n";

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(Sender, TelnetAckVersionIsDeliveredOnceTheReplyArrived) {
  // Refuses points whose value is 7, as OpenTSDB does a bad line.
  testing::LoopbackUpstream up(testing::TelnetScript([](const std::string& line) {
    testing::TelnetAnswer a;
    if (line == "version") a.reply = kVersionReply;
    if (line.find(" 7 ") != std::string::npos) a.reply = "put: illegal argument: invalid value\n";
    return a;
  }));
  TargetSpec spec;
  ASSERT_TRUE(
      ParseTarget("telnet://127.0.0.1:" + std::to_string(up.port()) + "?ack=version", &spec).ok());
  Sender s(spec, milliseconds(2000));
  std::vector<RelayPoint> points;
  for (int i = 5; i < 10; ++i) points.push_back(RelayPoint{&kM, 1000 * i, Value::Int(i)});
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(s.Send(points.data(), 3, &left_out, &error), SendOutcome::kDelivered) << error;
  // The upstream read every line before it answered: no waiting here.
  EXPECT_EQ(up.bytes(), "put m 5 5 h=a\nput m 6 6 h=a\nput m 7 7 h=a\nversion\n");
  EXPECT_EQ(left_out, 1u);
  EXPECT_EQ(s.refused(), 1u);
  EXPECT_EQ(error, "upstream refused 1 of 3 points: put: illegal argument: invalid value");
  error.clear();
  EXPECT_EQ(s.Send(&points[3], 2, &left_out, &error), SendOutcome::kDelivered) << error;
  EXPECT_EQ(left_out, 0u);
  EXPECT_EQ(s.refused(), 0u);
  EXPECT_EQ(error, "");
  EXPECT_EQ(Count(up.bytes(), "version\n"), 2u);
}

TEST(Sender, TelnetAckVersionTimeoutResendsTheBatch) {
  // Like VictoriaMetrics: the first `version` gets no answer.
  int versions = 0;
  testing::LoopbackUpstream up(testing::TelnetScript([&versions](const std::string& line) {
    testing::TelnetAnswer a;
    if (line == "version" && ++versions > 1) a.reply = kVersionReply;
    return a;
  }));
  TargetSpec spec;
  ASSERT_TRUE(
      ParseTarget("telnet://127.0.0.1:" + std::to_string(up.port()) + "?ack=version", &spec).ok());
  Sender s(spec, milliseconds(300));
  const RelayPoint p{&kM, 2000, Value::Int(4)};
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_NE(error.find("no reply to `version` in time"), std::string::npos) << error;
  EXPECT_FALSE(s.connected());
  // The next attempt resets nothing more: a new connection, the same batch.
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered) << error;
  EXPECT_EQ(up.bytes(), "put m 2 4 h=a\nversion\nput m 2 4 h=a\nversion\n");
}

TEST(Sender, TelnetAckVersionClosedBeforeTheReplyResends) {
  // Dies after reading the batch, before answering: the batch again.
  int versions = 0;
  testing::LoopbackUpstream up(testing::TelnetScript([&versions](const std::string& line) {
    testing::TelnetAnswer a;
    if (line != "version") return a;
    if (++versions == 1) {
      a.close = true;
    } else {
      a.reply = kVersionReply;
    }
    return a;
  }));
  TargetSpec spec;
  ASSERT_TRUE(
      ParseTarget("telnet://127.0.0.1:" + std::to_string(up.port()) + "?ack=version", &spec).ok());
  Sender s(spec, milliseconds(2000));
  const RelayPoint p{&kM, 3000, Value::Int(1)};
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_NE(error.find("closed the connection"), std::string::npos) << error;
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered) << error;
  EXPECT_EQ(Count(up.bytes(), "put m 3 1 h=a\n"), 2u);
}

TEST(Sender, TelnetAckVersionStorageFailureResends) {
  // An upstream that could not store the points says so before the reply.
  int versions = 0;
  testing::LoopbackUpstream up(testing::TelnetScript([&versions](const std::string& line) {
    testing::TelnetAnswer a;
    if (line == "version") {
      a.reply = std::string(++versions == 1 ? "put: HBase error: storage is not available\n" : "") +
                kVersionReply;
    }
    return a;
  }));
  TargetSpec spec;
  ASSERT_TRUE(
      ParseTarget("telnet://127.0.0.1:" + std::to_string(up.port()) + "?ack=version", &spec).ok());
  Sender s(spec, milliseconds(2000));
  const RelayPoint p{&kM, 4000, Value::Int(1)};
  size_t left_out = 0;
  std::string error;
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kRetry);
  EXPECT_EQ(error, "upstream could not store points (1 storage errors): put: HBase error: "
                   "storage is not available");
  EXPECT_TRUE(s.connected());  // it answered: the connection is kept
  error.clear();
  EXPECT_EQ(s.Send(&p, 1, &left_out, &error), SendOutcome::kDelivered) << error;
  EXPECT_EQ(left_out, 0u);
  EXPECT_EQ(Count(up.bytes(), "put m 4 1 h=a\n"), 2u);
}

}  // namespace
}  // namespace sundial::relay
