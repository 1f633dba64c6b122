#include "relay/telnet_reply.h"

#include <string>

#include <gtest/gtest.h>

namespace sundial::relay {
namespace {

// OpenTSDB 2.4's reply (opentsdb-compat.md §2.7) and sundiald's
// (src/server/version.cc).
constexpr char kOpenTsdbVersion[] =
    "net.opentsdb.tools 2.4.1 built at revision 6ec1b9e (MODIFIED)\n"
    "Built on 2021/07/16 14:02:16 +0000 by root@buildkitsandbox:/tmp/opentsdb-2.4.1\n";
constexpr char kSundialVersion[] =
    "net.opentsdb.tools 2.4.0 built at revision 1a2b3c4 (MINT)\n"
    "Built on 2024-01-01 by sundial@edge:sundial-0.9.0\n";

TEST(TelnetReplyParser, VersionReplyAloneCompletesTheBatch) {
  for (const char* reply : {kOpenTsdbVersion, kSundialVersion}) {
    TelnetReplyParser p;
    p.StartBatch();
    EXPECT_TRUE(p.Feed(reply));
    EXPECT_TRUE(p.complete()) << reply;
    EXPECT_EQ(p.error_lines(), 0u);
  }
}

TEST(TelnetReplyParser, ErrorLinesBeforeTheReplyAreCounted) {
  TelnetReplyParser p;
  p.StartBatch();
  const std::string replies = std::string("put: illegal argument: invalid tag: x\r\n") +
                              "put: invalid value: Invalid character 'a' in abc\n" +
                              kOpenTsdbVersion;
  // Byte by byte: a line or the reply may arrive cut anywhere.
  for (size_t i = 0; i < replies.size(); ++i) {
    EXPECT_FALSE(p.complete()) << i;
    ASSERT_TRUE(p.Feed(replies.substr(i, 1)));
  }
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.error_lines(), 2u);
  EXPECT_EQ(p.storage_errors(), 0u);
  EXPECT_EQ(p.first_error(), "put: illegal argument: invalid tag: x");
}

TEST(TelnetReplyParser, OnlyTheTwoLineShapeEndsTheReply) {
  TelnetReplyParser p;
  p.StartBatch();
  // "Built on" without the header line before it, and a header line
  // followed by something else, are error lines, not the end.
  ASSERT_TRUE(p.Feed("Built on a day\nnet.opentsdb.tools 2.4.1 built\nput: oops\n"));
  EXPECT_FALSE(p.complete());
  EXPECT_EQ(p.error_lines(), 2u);
  ASSERT_TRUE(p.Feed(kSundialVersion));
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.error_lines(), 2u);
}

TEST(TelnetReplyParser, StorageFailuresAreCountedApart) {
  TelnetReplyParser p;
  p.StartBatch();
  ASSERT_TRUE(p.Feed("put: HBase error: storage is not available\n"
                     "put: Please throttle writes: 10000 RPCs waiting\n"
                     "put: unknown metric: No such name for 'metrics': 'm'\n"));
  ASSERT_TRUE(p.Feed(kOpenTsdbVersion));
  EXPECT_EQ(p.error_lines(), 3u);
  EXPECT_EQ(p.storage_errors(), 2u);
}

TEST(TelnetReplyParser, LinesAfterTheReplyCountWithTheNextBatch) {
  TelnetReplyParser p;
  p.StartBatch();
  // OpenTSDB writes storage failures asynchronously: one may follow the
  // version reply, even in the same segment.
  ASSERT_TRUE(p.Feed(std::string(kOpenTsdbVersion) + "put: HBase error: gone\nput: ill"));
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.error_lines(), 0u);
  p.StartBatch();
  EXPECT_FALSE(p.complete());
  EXPECT_EQ(p.error_lines(), 1u);
  EXPECT_EQ(p.storage_errors(), 1u);
  ASSERT_TRUE(p.Feed("egal argument: empty value\n"));
  ASSERT_TRUE(p.Feed(kSundialVersion));
  EXPECT_TRUE(p.complete());
  EXPECT_EQ(p.error_lines(), 2u);
  EXPECT_EQ(p.first_error(), "put: HBase error: gone");
  // A reset connection forgets what was left.
  ASSERT_TRUE(p.Feed("put: x\n"));
  p.Reset();
  EXPECT_EQ(p.error_lines(), 0u);
  EXPECT_FALSE(p.complete());
}

TEST(TelnetReplyParser, EndlessLineIsNotTelnet) {
  TelnetReplyParser p;
  p.StartBatch();
  const std::string chunk(4096, 'x');
  bool ok = true;
  for (size_t i = 0; ok && i <= TelnetReplyParser::kMaxLine / chunk.size(); ++i) ok = p.Feed(chunk);
  EXPECT_FALSE(ok);
  EXPECT_EQ(p.first_error(), "");
  // Long error lines are fine, and only their start is kept.
  TelnetReplyParser q;
  q.StartBatch();
  ASSERT_TRUE(q.Feed("put: " + std::string(10000, 'y') + "\n"));
  EXPECT_EQ(q.first_error().size(), TelnetReplyParser::kMaxErrorText);
}

}  // namespace
}  // namespace sundial::relay
