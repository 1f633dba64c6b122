#include "relay/http_response.h"

#include <gtest/gtest.h>

namespace sundial::relay {
namespace {

ParseResult Parse(std::string_view in, bool eof, HttpResponse* r, size_t* consumed = nullptr) {
  size_t c = 0;
  std::string error;
  const ParseResult res = ParseHttpResponse(in, eof, r, consumed ? consumed : &c, &error);
  return res;
}

TEST(HttpResponse, NoContentAndContentLength) {
  HttpResponse r;
  size_t c = 0;
  const std::string two = "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 400 Bad\r\nContent-Length: 3\r\n\r\nabc";
  ASSERT_EQ(Parse(two, false, &r, &c), ParseResult::kComplete);
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.keep_alive);
  EXPECT_EQ(c, 27u);
  ASSERT_EQ(Parse(std::string_view(two).substr(c), false, &r), ParseResult::kComplete);
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, "abc");
}

TEST(HttpResponse, IncompleteUntilEverythingArrived) {
  const std::string full = "HTTP/1.1 500 Internal\r\nContent-Length: 10\r\n\r\n0123456789";
  HttpResponse r;
  for (size_t n = 0; n < full.size(); ++n) {
    EXPECT_EQ(Parse(full.substr(0, n), false, &r), ParseResult::kIncomplete) << n;
    EXPECT_EQ(Parse(full.substr(0, n), true, &r), ParseResult::kBad) << n;
  }
  EXPECT_EQ(Parse(full, false, &r), ParseResult::kComplete);
}

TEST(HttpResponse, ChunkedAndCloseDelimited) {
  HttpResponse r;
  ASSERT_EQ(Parse("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n"
                  "3;ext\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n",
                  false, &r),
            ParseResult::kComplete);
  EXPECT_EQ(r.body, "abcde");
  EXPECT_EQ(Parse("HTTP/1.0 200 OK\r\n\r\nuntil close", false, &r), ParseResult::kIncomplete);
  ASSERT_EQ(Parse("HTTP/1.0 200 OK\r\n\r\nuntil close", true, &r), ParseResult::kComplete);
  EXPECT_EQ(r.body, "until close");
  EXPECT_FALSE(r.keep_alive);
  ASSERT_EQ(Parse("HTTP/1.1 204 x\r\nConnection: close\r\n\r\n", false, &r), ParseResult::kComplete);
  EXPECT_FALSE(r.keep_alive);
}

TEST(HttpResponse, BadInputIsRefused) {
  HttpResponse r;
  for (const char* bad :
       {"SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 2000 OK\r\n\r\n", "HTTP/1.1 099 x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab",
        "HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n"}) {
    EXPECT_EQ(Parse(bad, false, &r), ParseResult::kBad) << bad;
  }
  EXPECT_EQ(Parse(std::string(kMaxResponseHead + 10, 'H'), false, &r), ParseResult::kBad);
}

}  // namespace
}  // namespace sundial::relay
