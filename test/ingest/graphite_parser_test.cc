#include "sundial/ingest/graphite_parser.h"

#include <gtest/gtest.h>

namespace sundial::ingest {
namespace {

constexpr Timestamp kNow = 1700000000000;

GraphitePoint Parse(std::string_view line) {
  GraphitePoint p;
  const Status s = ParseGraphiteLine(line, kNow, &p);
  EXPECT_TRUE(s.ok()) << line << ": " << s.ToString();
  return p;
}

Status Error(std::string_view line) {
  GraphitePoint p;
  return ParseGraphiteLine(line, kNow, &p);
}

TEST(GraphiteParser, PlainLine) {
  const GraphitePoint p = Parse("servers.a.cpu 0.5 1700000001");
  EXPECT_EQ(p.path, "servers.a.cpu");
  EXPECT_TRUE(p.tag_text.empty());
  EXPECT_EQ(p.value, 0.5);
  EXPECT_EQ(p.t_ms, 1700000001000);
}

TEST(GraphiteParser, BlanksTabsAndFractionalSeconds) {
  const GraphitePoint p = Parse("  a.b\t\t-12e3   1700000001.25 ");
  EXPECT_EQ(p.path, "a.b");
  EXPECT_EQ(p.value, -12000);
  EXPECT_EQ(p.t_ms, 1700000001250);
  EXPECT_EQ(Parse("a +7 0").value, 7);
  EXPECT_EQ(Parse("a 1 0").t_ms, 0);
}

TEST(GraphiteParser, MissingOrMinusOneTimestampIsNow) {
  EXPECT_EQ(Parse("a 1").t_ms, kNow);
  EXPECT_EQ(Parse("a 1 -1").t_ms, kNow);
  EXPECT_EQ(Parse("a 1 -1.0").t_ms, kNow);
}

TEST(GraphiteParser, TagsAreSplitFromThePath) {
  const GraphitePoint p = Parse("disk.used;datacenter=dc1;rack=a1;server=web01 42 1700000000");
  EXPECT_EQ(p.path, "disk.used");
  EXPECT_EQ(p.tag_text, ";datacenter=dc1;rack=a1;server=web01");
  std::vector<storage::TagRef> tags;
  ASSERT_TRUE(ParseGraphiteTags(p.tag_text, &tags).ok());
  ASSERT_EQ(tags.size(), 3u);
  EXPECT_EQ(tags[0].key, "datacenter");
  EXPECT_EQ(tags[0].value, "dc1");
  EXPECT_EQ(tags[2].key, "server");
  EXPECT_EQ(tags[2].value, "web01");
}

TEST(GraphiteParser, TagRulesFollowGraphite) {
  std::vector<storage::TagRef> tags;
  EXPECT_TRUE(ParseGraphiteTags(";k=v=w", &tags).ok());  // '=' is allowed in a value
  EXPECT_EQ(tags[0].value, "v=w");
  EXPECT_TRUE(ParseGraphiteTags(";k=a~b;x.y-z=1:2", &tags).ok());
  EXPECT_TRUE(ParseGraphiteTags(";k=1;k=2", &tags).ok());  // last one wins
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_EQ(tags[0].value, "2");
  for (const char* bad : {";k", ";=v", ";k=", ";k=~v", ";a!b=v", ";a^b=v", ";", ";k=v;"}) {
    EXPECT_TRUE(ParseGraphiteTags(bad, &tags).IsInvalidArgument()) << bad;
  }
}

TEST(GraphiteParser, BadLines) {
  for (const char* bad : {"", "   ", "a", "a b", "a 1 2 3", "a nan 1", "a inf 1", "a -inf",
                          "a 0x10 1", "a 1 soon", "a 1 -2", "a 1 99999999999", "a 1 nan",
                          ";k=v 1 1", "a ++1 1", "a 1,5 1"}) {
    EXPECT_TRUE(Error(bad).IsInvalidArgument()) << "'" << bad << "'";
  }
}

}  // namespace
}  // namespace sundial::ingest
