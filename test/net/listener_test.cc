#include "sundial/net/listener.h"

#include <gtest/gtest.h>

namespace sundial::net {
namespace {

// kHttp / kLine when decided, "more" when more bytes are needed.
std::string Detect(std::string_view bytes) {
  Protocol p;
  if (!DetectProtocol(bytes, &p)) return "more";
  return p == Protocol::kHttp ? "http" : "line";
}

TEST(DetectProtocol, RequestLinesAreHttp) {
  EXPECT_EQ(Detect("GET /api/version HTTP/1.1\r\n"), "http");
  EXPECT_EQ(Detect("POST /write?db=x HTTP/1.1\r\n"), "http");
  EXPECT_EQ(Detect("HEAD /ping HTTP/1.1\r\n"), "http");
  EXPECT_EQ(Detect("OPTIONS * HTTP/1.1\r\n"), "http");
  EXPECT_EQ(Detect("DELETE /x"), "http");
  EXPECT_EQ(Detect("GET /"), "http");
}

TEST(DetectProtocol, TelnetAndLineProtocolAreLine) {
  EXPECT_EQ(Detect("put m 1 1 a=b\n"), "line");
  EXPECT_EQ(Detect("version\n"), "line");
  EXPECT_EQ(Detect("cpu,host=a value=1\n"), "line");
  EXPECT_EQ(Detect("POSTAL_codes,zip=1 n=1\n"), "line");
  EXPECT_EQ(Detect("GETTER value=1\n"), "line");
  EXPECT_EQ(Detect("GET value=1\n"), "line");
  EXPECT_EQ(Detect("PUT value=1i\n"), "line");
  EXPECT_EQ(Detect("Put x 1 1 a=b\n"), "line");
  EXPECT_EQ(Detect("Zebra n=1\n"), "line");
  EXPECT_EQ(Detect("G\n"), "line");
  EXPECT_EQ(Detect("GETX"), "line");
}

TEST(DetectProtocol, PrefixesWaitForMoreBytes) {
  EXPECT_EQ(Detect("G"), "more");
  EXPECT_EQ(Detect("GE"), "more");
  EXPECT_EQ(Detect("GET"), "more");
  EXPECT_EQ(Detect("GET "), "more");
  EXPECT_EQ(Detect("P"), "more");
  EXPECT_EQ(Detect("PO"), "more");
  EXPECT_EQ(Detect("CONNEC"), "more");
  EXPECT_EQ(Detect("OPTIONS "), "more");
}

}  // namespace
}  // namespace sundial::net
