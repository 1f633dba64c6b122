#include "http_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace sundial::server {
namespace {

// Decodes text fed in pieces of `step` bytes; "ERROR <why>" on bad framing.
std::string Decode(const std::string& text, size_t step, bool* done = nullptr) {
  ChunkedDecoder d;
  std::string body, error;
  bool stop = false;
  for (size_t i = 0; i < text.size(); i += step) {
    if (!d.Feed(text.substr(i, step), [&](std::string_view p) { body.append(p); return true; },
                &stop, &error)) {
      return "ERROR " + error;
    }
  }
  if (done != nullptr) *done = d.done();
  return body;
}

TEST(ChunkedDecoder, DecodesInAnyPieces) {
  const std::string text = "5\r\nhello\r\n7;ext=1\r\n, world\r\nA\r\n0123456789\r\n0\r\n\r\n";
  for (size_t step = 1; step <= text.size(); ++step) {
    bool done = false;
    EXPECT_EQ(Decode(text, step, &done), "hello, world0123456789") << step;
    EXPECT_TRUE(done);
  }
}

TEST(ChunkedDecoder, IncompleteIsNotDone) {
  bool done = true;
  EXPECT_EQ(Decode("5\r\nhel", 100, &done), "hel");
  EXPECT_FALSE(done);
}

TEST(ChunkedDecoder, RejectsBadFraming) {
  EXPECT_EQ(Decode("x\r\n", 100), "ERROR bad chunk size");
  EXPECT_EQ(Decode("2\r\nabX\r\n", 100), "ERROR bad chunk trailer");
  EXPECT_EQ(Decode("fffffffffffffffff\r\n", 100), "ERROR chunk size too large");
  EXPECT_EQ(Decode(std::string(5000, '1'), 100), "ERROR chunk header too long");
}

TEST(ChunkedDecoder, StopsWhenTheReceiverSaysSo) {
  ChunkedDecoder d;
  bool stop = false;
  std::string error;
  int calls = 0;
  EXPECT_TRUE(d.Feed("3\r\nabc\r\n3\r\ndef\r\n", [&](std::string_view) { return ++calls < 1; },
                     &stop, &error));
  EXPECT_TRUE(stop);
  EXPECT_EQ(calls, 1);
}

TEST(ParseHttpUrl, HostsPortsAndPaths) {
  HttpUrl u;
  ASSERT_TRUE(ParseHttpUrl("http://localhost:4242", &u).ok());
  EXPECT_EQ(u.endpoint.address().to_string(), "127.0.0.1");
  ASSERT_TRUE(ParseToolUrl("http://localhost:4242", &u).ok());
  EXPECT_EQ(u.host, "localhost:4242");
  EXPECT_EQ(u.endpoint.address().to_string(), "127.0.0.1");
  EXPECT_EQ(u.endpoint.port(), 4242);
  EXPECT_EQ(u.path, "/");
  ASSERT_TRUE(ParseHttpUrl("http://[::1]/base", &u).ok());
  EXPECT_EQ(u.endpoint.port(), 80);
  EXPECT_EQ(u.path, "/base");
  EXPECT_FALSE(ParseHttpUrl("https://127.0.0.1", &u).ok());
  EXPECT_FALSE(ParseHttpUrl("http://127.0.0.1:0", &u).ok());
  EXPECT_TRUE(ParseHttpUrl("http://:4242", &u).IsInvalidArgument());
  EXPECT_TRUE(ParseHttpUrl("http://[localhost]:4242", &u).IsInvalidArgument());
  ASSERT_TRUE(ParseHttpUrl("http://10.1.2.3:4242/x", &u).ok());
  EXPECT_EQ(u.endpoint.address().to_string(), "10.1.2.3");
  EXPECT_EQ(u.host, "10.1.2.3:4242");
}

TEST(ParseHttpUrl, UnknownHostFailsFastWithItsName) {
  HttpUrl u;
  const auto t0 = std::chrono::steady_clock::now();
  const Status s = ParseToolUrl("http://nonexistent.invalid:4242/", &u);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown host nonexistent.invalid"), std::string::npos)
      << s.ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
}

TEST(UrlEncode, EscapesReservedBytes) {
  EXPECT_EQ(UrlEncode("none:cpu{host=a b}"), "none%3Acpu%7Bhost%3Da%20b%7D");
  EXPECT_EQ(UrlEncode("a-b_c.d~"), "a-b_c.d~");
}

}  // namespace
}  // namespace sundial::server
