#include "sundial/relay/target_spec.h"

#include <gtest/gtest.h>

namespace sundial::relay {
namespace {

TEST(TargetSpec, SchemesNameTheProtocol) {
  TargetSpec t;
  ASSERT_TRUE(ParseTarget("telnet://10.0.0.1:4242", &t).ok());
  EXPECT_EQ(t.protocol, Protocol::kTelnet);
  EXPECT_EQ(t.host, "10.0.0.1");
  EXPECT_EQ(t.port, 4242);
  ASSERT_TRUE(ParseTarget("http://tsd:4242", &t).ok());
  EXPECT_EQ(t.protocol, Protocol::kHttpPut);
  EXPECT_EQ(t.path, "/api/put");
  ASSERT_TRUE(ParseTarget("remote-write://vminsert:8480/insert/0/prometheus/api/v1/write", &t).ok());
  EXPECT_EQ(t.protocol, Protocol::kRemoteWrite);
  EXPECT_EQ(t.path, "/insert/0/prometheus/api/v1/write");
  ASSERT_TRUE(ParseTarget("influx://[::1]:8086/write?db=edge", &t).ok());
  EXPECT_EQ(t.protocol, Protocol::kInflux);
  EXPECT_EQ(t.host, "::1");
  EXPECT_EQ(t.path, "/write?db=edge&precision=ms");
  EXPECT_EQ(t.display, "influx://[::1]:8086/write?db=edge&precision=ms");
}

TEST(TargetSpec, InfluxPrecisionIsAlwaysMilliseconds) {
  TargetSpec t;
  // Given by the user, it stays where it is (the id does not change).
  ASSERT_TRUE(ParseTarget("influx://h:8086/write?precision=ms&db=a", &t).ok());
  EXPECT_EQ(t.path, "/write?precision=ms&db=a");
  // "precision=" inside another value is not the parameter: a masked value
  // hides it, and the shown URL must parse back to the same target.
  ASSERT_TRUE(ParseTarget("influx://h:8086/write?db=a&pwd=xprecision=s", &t).ok());
  EXPECT_EQ(t.path, "/write?db=a&pwd=xprecision=s&precision=ms");
  EXPECT_EQ(t.display, "influx://h:8086/write?db=a&pwd=***&precision=ms");
  TargetSpec again;
  ASSERT_TRUE(ParseTarget(t.display, &again).ok());
  EXPECT_EQ(again.id, t.id);
  // Any other unit would misplace every point by a factor of 1000 or more.
  const std::string e = ParseTarget("influx://h:8086/write?db=a&precision=s", &t).ToString();
  EXPECT_NE(e.find("precision must be ms"), std::string::npos) << e;
  // Other protocols pass it upstream untouched.
  ASSERT_TRUE(ParseTarget("http://h:1/api/put?precision=s", &t).ok());
  EXPECT_EQ(t.path, "/api/put?precision=s");
}

TEST(TargetSpec, OwnParametersAreConsumedAndSecretsHidden) {
  TargetSpec t;
  ASSERT_TRUE(ParseTarget("remote-write://h:9/w?include=sys.*&include=net.*&exclude=sys.tmp.*"
                          "&tag=site=berlin%201&batch=500&timeout=2s&max_pending=64MiB"
                          "&bearer=s3cret&extra=1",
                          &t)
                  .ok());
  EXPECT_EQ(t.include, (std::vector<std::string>{"sys.*", "net.*"}));
  EXPECT_EQ(t.exclude, (std::vector<std::string>{"sys.tmp.*"}));
  ASSERT_EQ(t.add_tags.size(), 1u);
  EXPECT_EQ(t.add_tags[0].first, "site");
  EXPECT_EQ(t.add_tags[0].second, "berlin 1");
  EXPECT_EQ(t.batch_points, 500u);
  EXPECT_EQ(t.timeout.count(), 2000);
  EXPECT_EQ(t.max_pending_bytes, 64ull << 20);
  EXPECT_EQ(t.authorization, "Bearer s3cret");
  EXPECT_EQ(t.path, "/w?extra=1");
  EXPECT_EQ(t.display.find("s3cret"), std::string::npos);
  ASSERT_TRUE(ParseTarget("http://h:1?basic=Aladdin:open%20sesame", &t).ok());
  EXPECT_EQ(t.authorization, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
}

TEST(TargetSpec, CredentialsAreMaskedWhereverTheUrlIsShown) {
  TargetSpec t;
  ASSERT_TRUE(ParseTarget("influx://h:8086/write?db=x&u=bob&p=hunter2&authKey=k1&Access_Token=t2", &t)
                  .ok());
  EXPECT_EQ(t.path, "/write?db=x&u=bob&p=hunter2&authKey=k1&Access_Token=t2&precision=ms");
  EXPECT_EQ(t.display, "influx://h:8086/write?db=x&u=bob&p=***&authKey=***&Access_Token=***&precision=ms");
  TargetSpec rotated;  // a new password keeps the target's id (its position)
  ASSERT_TRUE(ParseTarget("influx://h:8086/write?db=x&u=bob&p=new&authKey=k2&Access_Token=t3", &rotated)
                  .ok());
  EXPECT_EQ(rotated.id, t.id);
  // USER:PASSWORD@ is basic auth and is not shown.
  ASSERT_TRUE(ParseTarget("http://Aladdin:open%20sesame@h:1/api/put", &t).ok());
  EXPECT_EQ(t.authorization, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
  EXPECT_EQ(t.host, "h");
  EXPECT_EQ(t.display, "http://h:1/api/put");
  // Errors show the URL masked.
  auto err = [&](const char* url) { return ParseTarget(url, &t).ToString(); };
  const std::string e1 = err("http://bob:hunter2@h:1?tag=x");
  EXPECT_EQ(e1.find("hunter2"), std::string::npos) << e1;
  EXPECT_NE(e1.find("http://bob:***@h:1?tag=x"), std::string::npos) << e1;
  const std::string e2 = err("http://h:1?bearer=tok3n&batch=0");
  EXPECT_NE(e2.find("http://h:1?bearer=***&batch=0"), std::string::npos) << e2;
  const std::string e3 = err("http://h:1?basic=bob:pw&p=pw2&batch=0");
  EXPECT_NE(e3.find("?basic=bob:***&p=***&batch=0"), std::string::npos) << e3;
  EXPECT_NE(err("http://a:b@h:1?bearer=x").find("twice"), std::string::npos);
  EXPECT_NE(err("http://nopassword@h:1").find("USER:PASSWORD"), std::string::npos);
  EXPECT_NE(err("telnet://a:b@h:1").find("no credentials"), std::string::npos);
  EXPECT_EQ(MaskTargetUrl("http://token@h:1/x?a=1"), "http://***@h:1/x?a=1");
  EXPECT_EQ(MaskTargetUrl("http://h:1/x?a=1&&secret"), "http://h:1/x?a=1&&secret");
  EXPECT_EQ(MaskTargetUrl("not a url"), "not a url");
  EXPECT_EQ(MaskTargetUrl("influx://h:1/write?%70=pw&PassWord=pw"), "influx://h:1/write?%70=***&PassWord=***");
  ASSERT_TRUE(ParseTarget("http://h:1/api/put?secret&x=1", &t).ok());
  EXPECT_EQ(t.display, "http://h:1/api/put?secret&x=1");  // nothing to mask
}

TEST(TargetSpec, ErrorsSayWhatIsWrong) {
  TargetSpec t;
  auto err = [&](const char* url) { return ParseTarget(url, &t).ToString(); };
  EXPECT_NE(err("https://h:443").find("TLS is not supported"), std::string::npos);
  EXPECT_NE(err("ftp://h:21").find("unknown scheme"), std::string::npos);
  EXPECT_NE(err("http://h").find("port is required"), std::string::npos);
  EXPECT_NE(err("http://h:0").find("port must be"), std::string::npos);
  EXPECT_NE(err("http://h:99999").find("port must be"), std::string::npos);
  EXPECT_NE(err("remote-write://h:9").find("needs a path"), std::string::npos);
  EXPECT_NE(err("telnet://h:9/x").find("no path"), std::string::npos);
  EXPECT_NE(err("http://h:9?batch=0").find("batch"), std::string::npos);
  EXPECT_NE(err("http://h:9?timeout=soon").find("timeout"), std::string::npos);
  EXPECT_NE(err("http://h:9?tag=novalue").find("KEY=VALUE"), std::string::npos);
  EXPECT_NE(err("http://h:9?tag=a=1&tag=a=2").find("twice"), std::string::npos);
  EXPECT_NE(err("http://h:9?bearer=%zz").find("percent"), std::string::npos);
  EXPECT_NE(err("h:9").find("scheme://"), std::string::npos);
}

TEST(TargetSpec, ListsSkipBlanksAndRefuseRepeats) {
  std::vector<TargetSpec> v;
  ASSERT_TRUE(ParseTargetList(" telnet://a:1 , ,http://b:2 ", &v).ok());
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NE(v[0].id, v[1].id);
  EXPECT_EQ(v[0].id.rfind("telnet-", 0), 0u);
  ASSERT_TRUE(ParseTargetList("", &v).ok());
  EXPECT_TRUE(v.empty());
  EXPECT_FALSE(ParseTargetList("http://a:1,http://a:1/api/put", &v).ok());
}

TEST(TargetSpec, GlobsSelectMetrics) {
  EXPECT_TRUE(GlobMatch("sys.*", "sys.cpu.user"));
  EXPECT_TRUE(GlobMatch("*.user", "sys.cpu.user"));
  EXPECT_TRUE(GlobMatch("s*c*r", "sys.cpu.user"));
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_FALSE(GlobMatch("sys.*", "net.if"));
  EXPECT_FALSE(GlobMatch("a*b", "aXbY"));
  TargetSpec t;
  ASSERT_TRUE(ParseTarget("http://h:1?include=sys.*&exclude=sys.tmp.*", &t).ok());
  EXPECT_TRUE(MetricSelected(t, "sys.cpu"));
  EXPECT_FALSE(MetricSelected(t, "sys.tmp.x"));
  EXPECT_FALSE(MetricSelected(t, "net.if"));
}

TEST(TargetSpec, AckIsATelnetOption) {
  TargetSpec t;
  ASSERT_TRUE(ParseTarget("telnet://tsd:4242", &t).ok());
  EXPECT_EQ(t.ack, TelnetAck::kTcp);
  const std::string id = t.id;
  ASSERT_TRUE(ParseTarget("telnet://tsd:4242?ack=version", &t).ok());
  EXPECT_EQ(t.ack, TelnetAck::kVersion);
  EXPECT_EQ(t.display, "telnet://tsd:4242");
  EXPECT_EQ(t.id, id);  // switching it on keeps the position
  ASSERT_TRUE(ParseTarget("telnet://tsd:4242?ack=tcp", &t).ok());
  EXPECT_EQ(t.ack, TelnetAck::kTcp);
  Status s = ParseTarget("telnet://tsd:4242?ack=yes", &t);
  EXPECT_NE(s.ToString().find("ack must be tcp or version, got \"yes\""), std::string::npos)
      << s.ToString();
  s = ParseTarget("http://tsd:4242?ack=version", &t);
  EXPECT_NE(s.ToString().find("ack= is for telnet targets"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace sundial::relay
