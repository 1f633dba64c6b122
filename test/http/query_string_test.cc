#include "sundial/http/query_string.h"

#include <gtest/gtest.h>

namespace sundial::http {
namespace {

TEST(QueryString, DecodesPlusAndPercent) {
  QueryParams p;
  ASSERT_TRUE(ParseQueryString("m=sum:sys.cpu%7Bhost%3Dweb01%7D&start=1h-ago&a+b=c+d", &p).ok());
  EXPECT_EQ(p.Get("m"), "sum:sys.cpu{host=web01}");
  EXPECT_EQ(p.Get("start"), "1h-ago");
  EXPECT_EQ(p.Get("a b"), "c d");
}

TEST(QueryString, RepeatedKeysKeptLastWins) {
  QueryParams p;
  ASSERT_TRUE(ParseQueryString("m=a&m=b&x=1&m=c", &p).ok());
  EXPECT_EQ(p.Get("m"), "c");
  auto all = p.GetAll("m");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0], "a");
  EXPECT_EQ(all[2], "c");
}

TEST(QueryString, FlagsArePresenceOnly) {
  QueryParams p;
  ASSERT_TRUE(ParseQueryString("arrays=false&summary&&details=", &p).ok());
  EXPECT_TRUE(p.Has("arrays"));
  EXPECT_TRUE(p.Has("summary"));
  EXPECT_TRUE(p.Has("details"));
  EXPECT_FALSE(p.Has("sync"));
  EXPECT_EQ(p.Get("summary"), "");
  EXPECT_EQ(p.Find("sync"), nullptr);
}

TEST(QueryString, MalformedEscapeIsAnError) {
  QueryParams p;
  EXPECT_TRUE(ParseQueryString("a=%zz", &p).IsInvalidArgument());
  EXPECT_TRUE(ParseQueryString("a=%4", &p).IsInvalidArgument());
  EXPECT_TRUE(ParseQueryString("a=%", &p).IsInvalidArgument());
}

TEST(QueryString, DecodesEveryEscapeAndCopiesPlainText) {
  std::string out = "stale";
  ASSERT_TRUE(PercentDecode("plain.text-1", true, &out).ok());
  EXPECT_EQ(out, "plain.text-1");
  ASSERT_TRUE(PercentDecode("", true, &out).ok());
  EXPECT_EQ(out, "");
  ASSERT_TRUE(PercentDecode("ab%41%42c", true, &out).ok());
  EXPECT_EQ(out, "abABc");
  ASSERT_TRUE(PercentDecode("+%2B+", true, &out).ok());
  EXPECT_EQ(out, " + ");
  ASSERT_TRUE(PercentDecode("+%2B+", false, &out).ok());
  EXPECT_EQ(out, "+++");
  ASSERT_TRUE(PercentDecode("%00%ff%7e", false, &out).ok());
  EXPECT_EQ(out, std::string("\0\xff~", 3));
  EXPECT_TRUE(PercentDecode("ok%2", false, &out).IsInvalidArgument());
  EXPECT_TRUE(PercentDecode("%g0", false, &out).IsInvalidArgument());
}

TEST(QueryString, ErrorKeepsTheParamsBeforeIt) {
  QueryParams p;
  EXPECT_TRUE(ParseQueryString("a=1&b=%zz&c=3", &p).IsInvalidArgument());
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p.Get("a"), "1");
  QueryParams q;
  EXPECT_TRUE(ParseQueryString("a=1&%q=2", &q).IsInvalidArgument());
  ASSERT_EQ(q.size(), 1u);
}

TEST(QueryString, TargetSplitsPathAndQuery) {
  std::string path;
  QueryParams p;
  ASSERT_TRUE(ParseTarget("/api/query%2Flast?x=a+b#frag", &path, &p).ok());
  EXPECT_EQ(path, "/api/query/last");
  EXPECT_EQ(p.Get("x"), "a b");
  path.clear();
  ASSERT_TRUE(ParseTarget("http://h:4242/api/put?x", &path, &p).ok());
  EXPECT_EQ(path, "/api/put");
  // '+' in a path stays '+'.
  ASSERT_TRUE(ParseTarget("/a+b", &path, &p).ok());
  EXPECT_EQ(path, "/a+b");
}

TEST(Headers, CaseInsensitiveLookup) {
  Headers h;
  h.Add("Content-Type", "application/json");
  h.Add("X-A", "1");
  EXPECT_EQ(h.Get("content-type"), "application/json");
  EXPECT_TRUE(h.Has("x-a"));
  EXPECT_FALSE(h.Has("x-b"));
  EXPECT_EQ(h.Get("x-b"), "");
}

}  // namespace
}  // namespace sundial::http
