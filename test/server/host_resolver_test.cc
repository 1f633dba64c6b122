#include "host_resolver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>

namespace sundial::server {
namespace {

using std::chrono::milliseconds;

TEST(ResolveHost, NumericAddressesNeedNoLookup) {
  asio::ip::tcp::endpoint e;
  ASSERT_TRUE(ResolveHost("192.0.2.7", 4242, milliseconds(1), &e).ok());
  EXPECT_EQ(e.address().to_string(), "192.0.2.7");
  EXPECT_EQ(e.port(), 4242);
  ASSERT_TRUE(ResolveHost("::1", 80, milliseconds(1), &e).ok());
  EXPECT_TRUE(e.address().is_v6());
  EXPECT_TRUE(ResolveHost("", 80, milliseconds(1), &e).IsInvalidArgument());
}

TEST(ResolveHost, LocalhostIsIpv4Loopback) {
  asio::ip::tcp::endpoint e;
  for (const char* name : {"localhost", "LocalHost", "localhost."}) {
    ASSERT_TRUE(ResolveHost(name, 4242, milliseconds(1), &e).ok()) << name;
    EXPECT_EQ(e.address().to_string(), "127.0.0.1") << name;
    EXPECT_EQ(e.port(), 4242);
  }
}

TEST(ResolveHost, ReservedInvalidNamesFailAtOnce) {
  asio::ip::tcp::endpoint e;
  for (const char* name : {"nonexistent.invalid", "a.b.INVALID", "invalid", "x.invalid."}) {
    const auto t0 = std::chrono::steady_clock::now();
    const Status s = ResolveHost(name, 4242, milliseconds(10000), &e);
    EXPECT_TRUE(s.IsNotFound()) << name << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(std::string("unknown host ") + name), std::string::npos)
        << s.ToString();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(100)) << name;
  }
}

// A name from /etc/hosts goes through getaddrinfo (the NSS "files" source,
// no network). Skipped where the file has no usable entry.
TEST(ResolveHost, NamesGoThroughTheSystemResolver) {
  std::ifstream hosts("/etc/hosts");
  std::string line, name;
  while (name.empty() && std::getline(hosts, line)) {
    if (line.empty() || line[0] == '#' || line.find(':') != std::string::npos) continue;
    const size_t sp = line.find_first_of(" \t");
    const size_t b = sp == std::string::npos ? sp : line.find_first_not_of(" \t", sp);
    if (b == std::string::npos) continue;
    const std::string first = line.substr(b, line.find_first_of(" \t#", b) - b);
    if (first != "localhost") name = first;
  }
  if (name.empty()) GTEST_SKIP() << "no IPv4 name in /etc/hosts";
  asio::ip::tcp::endpoint e;
  const Status s = ResolveHost(name, 4242, milliseconds(5000), &e);
  ASSERT_TRUE(s.ok()) << name << ": " << s.ToString();
  EXPECT_EQ(e.port(), 4242);
  EXPECT_TRUE(e.address().is_v4()) << e.address().to_string();
}

}  // namespace
}  // namespace sundial::server
