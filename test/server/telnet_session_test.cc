#include "server/telnet_session.h"

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

// Consumes put lines, records them, answers "ok <n>\n" per call.
class RecordingSink : public PutLineSink {
 public:
  explicit RecordingSink(std::vector<std::string>* calls) : calls_(calls) {}
  size_t HandlePutLines(std::string_view lines, net::ReplyBuffer* reply) override {
    size_t pos = 0;
    while (pos < lines.size() && IsPutLine(lines.substr(pos))) pos = lines.find('\n', pos) + 1;
    calls_->emplace_back(lines.substr(0, pos));
    reply->Append("sink\n");
    return pos;
  }

 private:
  std::vector<std::string>* calls_;
};

struct Fixture {
  Options options = DefaultOptions();
  ServerStats stats;
  ServiceContext ctx;
  std::vector<std::string> calls;
  bool shutdown = false;
  std::unique_ptr<TelnetSession> session;
  Fixture() {
    ctx.options = &options;
    ctx.stats = &stats;
    ctx.request_shutdown = [this] { shutdown = true; };
    session = std::make_unique<TelnetSession>(&ctx, std::make_unique<RecordingSink>(&calls));
  }
  std::string Run(std::string_view lines, net::LineHandler::Action* action = nullptr) {
    net::ReplyBuffer reply(1 << 20);
    size_t consumed = 0;
    auto a = session->HandleLines(lines, &reply, &consumed);
    EXPECT_EQ(consumed, lines.size());
    if (action) *action = a;
    std::string out;
    reply.TakeInto(&out);
    return out;
  }
};

TEST(TelnetSession, ConsecutivePutLinesGoToTheSinkInOneCall) {
  Fixture f;
  const std::string out = f.Run("put a 1 1 x=y\nput b 1 1 x=y\r\nversion\nput c 1 1 x=y\n");
  ASSERT_EQ(f.calls.size(), 2u);
  EXPECT_EQ(f.calls[0], "put a 1 1 x=y\nput b 1 1 x=y\r\n");
  EXPECT_EQ(f.calls[1], "put c 1 1 x=y\n");
  EXPECT_EQ(out.rfind("sink\nnet.opentsdb.tools ", 0), 0u) << out;
  EXPECT_EQ(out.substr(out.size() - 5), "sink\n");
}

TEST(TelnetSession, Commands) {
  Fixture f;
  EXPECT_EQ(f.Run("help\n"),
            "available commands: stats dropcaches version exit help put rollup histogram \n");
  EXPECT_EQ(f.Run("dropcaches\r\n"), "Caches dropped.\n");
  EXPECT_EQ(f.Run("foo bar\n"), "unknown command: foo.  Try `help'.\n");
  EXPECT_EQ(f.Run("\n"), "unknown command: .  Try `help'.\n");
  EXPECT_EQ(f.Run("Put x 1 1 a=b\n"), "unknown command: Put.  Try `help'.\n");
  EXPECT_EQ(f.Run("diediedie\n"), "unknown command: diediedie.  Try `help'.\n");
  EXPECT_FALSE(f.shutdown);
  EXPECT_EQ(f.Run("rollup 1h-sum m 1\n"),
            "rollup: illegal argument: not enough arguments (need least 7, got 3)\n");
  const std::string v = f.Run("version\n");
  EXPECT_EQ(v.rfind("net.opentsdb.tools 2.4.1 built at revision ", 0), 0u) << v;
  EXPECT_NE(v.find("\nBuilt on "), std::string::npos);
  EXPECT_EQ(std::count(v.begin(), v.end(), '\n'), 2);
  const std::string stats = f.Run("stats\n");
  EXPECT_EQ(stats.rfind("tsd.", 0), 0u) << stats;
  EXPECT_NE(stats.find(" host="), std::string::npos);
}

TEST(TelnetSession, ExitStopsHandlingFurtherLines) {
  Fixture f;
  net::LineHandler::Action a;
  EXPECT_EQ(f.Run("dropcaches\nexit\nversion\n", &a), "Caches dropped.\n");
  EXPECT_EQ(a, net::LineHandler::Action::kClose);
}

TEST(TelnetSession, DiediedieWhenEnabled) {
  Fixture f;
  f.options.telnet.diediedie = true;
  EXPECT_EQ(f.Run("diediedie\n"), "Cleaning up and exiting now.\n");
  EXPECT_TRUE(f.shutdown);
}

TEST(TelnetSession, PutLineDetection) {
  EXPECT_TRUE(IsPutLine("put x\n"));
  EXPECT_TRUE(IsPutLine("put\n"));
  EXPECT_TRUE(IsPutLine("put\r\n"));
  EXPECT_FALSE(IsPutLine("putx 1\n"));
  EXPECT_FALSE(IsPutLine("PUT x\n"));
  EXPECT_FALSE(IsPutLine("pu\n"));
}

TEST(TelnetSession, PausesAtACommandWhileRepliesAreCongested) {
  Fixture f;
  net::ReplyBuffer reply(4096);
  ASSERT_TRUE(reply.Append(std::string(2048, 'x')));  // half the cap unsent
  const std::string lines = "put a 1 1 x=y\nversion\nput b 1 1 x=y\n";
  size_t consumed = 0;
  EXPECT_EQ(f.session->HandleLines(lines, &reply, &consumed), net::LineHandler::Action::kPause);
  EXPECT_EQ(consumed, std::string("put a 1 1 x=y\n").size());  // puts still flow
  ASSERT_EQ(f.calls.size(), 1u);
  // Once the client has read, the rest is handled.
  std::string taken;
  reply.TakeInto(&taken);
  const std::string rest = lines.substr(consumed);
  EXPECT_EQ(f.session->HandleLines(rest, &reply, &consumed), net::LineHandler::Action::kContinue);
  EXPECT_EQ(consumed, rest.size());
  EXPECT_EQ(f.calls.size(), 2u);
}

}  // namespace
}  // namespace sundial::server
