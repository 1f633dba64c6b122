#include "relay/sender.h"

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

}  // namespace
}  // namespace sundial::relay
