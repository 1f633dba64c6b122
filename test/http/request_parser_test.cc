#include "sundial/http/request_parser.h"

#include <gtest/gtest.h>

#include "sundial/http/body_codec.h"

namespace sundial::http {
namespace {

// Parses all of `in` byte-chunked by `chunk`; returns the requests.
std::vector<Request> ParseAll(RequestParser* p, const std::string& in, size_t chunk,
                              bool* error) {
  std::vector<Request> out;
  *error = false;
  size_t pos = 0;
  while (pos < in.size()) {
    size_t len = std::min(chunk, in.size() - pos);
    size_t used = 0;
    Request r;
    auto res = p->Parse(in.data() + pos, len, &used, &r);
    pos += used;
    if (res == RequestParser::Result::kError) {
      *error = true;
      return out;
    }
    if (res == RequestParser::Result::kRequest) out.push_back(std::move(r));
  }
  return out;
}

TEST(RequestParser, PipelinedRequestsOneAtATime) {
  const std::string in =
      "GET /api/version HTTP/1.1\r\nHost: x\r\n\r\n"
      "POST /api/put?details HTTP/1.1\r\nContent-Length: 5\r\nX-Y: z\r\n\r\nhello"
      "GET /a HTTP/1.1\r\nConnection: close\r\n\r\n";
  for (size_t chunk : {1u, 7u, 1000u}) {
    RequestParser p({});
    bool err = false;
    auto reqs = ParseAll(&p, in, chunk, &err);
    ASSERT_FALSE(err);
    ASSERT_EQ(reqs.size(), 3u) << "chunk " << chunk;
    EXPECT_EQ(reqs[0].method, Method::kGet);
    EXPECT_EQ(reqs[0].path, "/api/version");
    EXPECT_TRUE(reqs[0].keep_alive);
    EXPECT_EQ(reqs[1].method, Method::kPost);
    EXPECT_EQ(reqs[1].body, "hello");
    EXPECT_TRUE(reqs[1].params.Has("details"));
    EXPECT_EQ(reqs[1].headers.Get("x-y"), "z");
    EXPECT_FALSE(reqs[2].keep_alive);
  }
}

TEST(RequestParser, HeaderFieldsSplitAnywhereKeepOrderAndEmptyValues) {
  const std::string in =
      "GET /x HTTP/1.1\r\nA:\r\nLong-Name: some value\r\nb: 2\r\nEmpty:\r\n\r\n"
      "GET /y HTTP/1.1\r\nC: 3\r\n\r\n";
  for (size_t chunk : {1u, 2u, 5u, 1000u}) {
    RequestParser p({});
    bool err = false;
    auto reqs = ParseAll(&p, in, chunk, &err);
    ASSERT_FALSE(err);
    ASSERT_EQ(reqs.size(), 2u) << "chunk " << chunk;
    const auto& f = reqs[0].headers.fields();
    ASSERT_EQ(f.size(), 4u) << "chunk " << chunk;
    EXPECT_EQ(f[0].first, "A");
    EXPECT_EQ(f[0].second, "");
    EXPECT_EQ(f[1].first, "Long-Name");
    EXPECT_EQ(f[1].second, "some value");
    EXPECT_EQ(f[2].first, "b");
    EXPECT_EQ(f[2].second, "2");
    EXPECT_EQ(f[3].first, "Empty");
    EXPECT_EQ(f[3].second, "");
    ASSERT_EQ(reqs[1].headers.fields().size(), 1u);
    EXPECT_EQ(reqs[1].headers.Get("c"), "3");
    EXPECT_EQ(reqs[1].path, "/y");
  }
}

TEST(RequestParser, ChunkedBody) {
  const std::string in =
      "POST /api/put HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
  RequestParser p({});
  bool err = false;
  auto reqs = ParseAll(&p, in, 3, &err);
  ASSERT_FALSE(err);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].body, "hello world");
}

TEST(RequestParser, GzipBody) {
  std::string packed;
  ASSERT_TRUE(GzipCompress("[1,2,3]", &packed).ok());
  const std::string in = "POST /api/put HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: " +
                         std::to_string(packed.size()) + "\r\n\r\n" + packed;
  RequestParser p({});
  bool err = false;
  auto reqs = ParseAll(&p, in, 1000, &err);
  ASSERT_FALSE(err);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].body, "[1,2,3]");
}

// Snappy (Prometheus remote_write) is left to the handler, undecoded.
TEST(RequestParser, SnappyBodyIsPassedThrough) {
  const std::string in =
      "POST /api/v1/write HTTP/1.1\r\nContent-Encoding: snappy\r\nContent-Length: 4\r\n\r\n"
      "\x03\x08xy";
  RequestParser p({});
  bool err = false;
  auto reqs = ParseAll(&p, in, 1000, &err);
  ASSERT_FALSE(err);
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].body, "\x03\x08xy");
}

TEST(RequestParser, BadGzipIs400) {
  const std::string in =
      "POST /api/put HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd";
  RequestParser p({});
  bool err = false;
  ParseAll(&p, in, 1000, &err);
  ASSERT_TRUE(err);
  EXPECT_EQ(p.error().status, 400);
}

TEST(RequestParser, BodyLimit) {
  ParserLimits limits;
  limits.max_body_bytes = 10;
  {
    RequestParser p(limits);
    bool err = false;
    ParseAll(&p, "POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", 1000, &err);
    ASSERT_TRUE(err);
    EXPECT_EQ(p.error().status, 413);
  }
  {
    RequestParser p(limits);
    bool err = false;
    ParseAll(&p, "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n123",
             1000, &err);
    ASSERT_TRUE(err);
    EXPECT_EQ(p.error().status, 413);
  }
  {
    std::string packed;
    ASSERT_TRUE(GzipCompress(std::string(100, 'a'), &packed).ok());
    limits.max_body_bytes = 50;
    RequestParser p(limits);
    bool err = false;
    ParseAll(&p, "POST / HTTP/1.1\r\nContent-Encoding: gzip\r\nContent-Length: " +
                     std::to_string(packed.size()) + "\r\n\r\n" + packed,
             1000, &err);
    ASSERT_TRUE(err);
    EXPECT_EQ(p.error().status, 413);
  }
}

TEST(RequestParser, MethodsOutsideOpenTsdbsSetAreBare405) {
  RequestParser p({});
  bool err = false;
  ParseAll(&p, "HEAD / HTTP/1.1\r\n\r\n", 1000, &err);
  ASSERT_TRUE(err);
  EXPECT_EQ(p.error().status, 405);
  EXPECT_TRUE(p.error().bare);
}

TEST(RequestParser, MalformedIs400) {
  for (const char* bad : {"GET / HTTP/1.1\r\nBad Header\r\n\r\n", "GET /\x01 HTTP/1.1\r\n\r\n",
                          "GET / HTTP/9.x\r\n\r\n", "GET /a%zz HTTP/1.1\r\n\r\n"}) {
    RequestParser p({});
    bool err = false;
    ParseAll(&p, bad, 1000, &err);
    EXPECT_TRUE(err) << bad;
    EXPECT_EQ(p.error().status, 400) << bad;
  }
}

TEST(RequestParser, Http10KeepAlive) {
  RequestParser p({});
  bool err = false;
  auto reqs = ParseAll(&p, "GET / HTTP/1.0\r\n\r\nGET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
                       1000, &err);
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_FALSE(reqs[0].keep_alive);
  EXPECT_TRUE(reqs[1].keep_alive);
}

TEST(RequestParser, ExpectContinue) {
  RequestParser p({});
  size_t used = 0;
  Request r;
  const std::string head = "POST /x HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n";
  EXPECT_EQ(p.Parse(head.data(), head.size(), &used, &r), RequestParser::Result::kNeedMore);
  EXPECT_TRUE(p.TakeExpectContinue());
  EXPECT_FALSE(p.TakeExpectContinue());
  EXPECT_EQ(p.Parse("abc", 3, &used, &r), RequestParser::Result::kRequest);
  EXPECT_EQ(r.body, "abc");
}

}  // namespace
}  // namespace sundial::http
