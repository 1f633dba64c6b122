#include "sundial/http/reply.h"

#include <gtest/gtest.h>

namespace sundial::http {
namespace {

TEST(Reply, ErrorBodyShape) {
  EXPECT_EQ(Reply::Error(400, "bad").body, R"({"error":{"code":400,"message":"bad"}})");
  EXPECT_EQ(Reply::Error(405, "Method not allowed", "x").body,
            R"({"error":{"code":405,"message":"Method not allowed","details":"x"}})");
  EXPECT_EQ(Reply::EndpointNotFound().body,
            R"({"error":{"code":404,"message":"Endpoint not found"}})");
  EXPECT_EQ(Reply::EndpointNotFound().content_type, "application/json; charset=UTF-8");
}

TEST(Reply, JsonStringEscaping) {
  std::string out;
  AppendJsonString("a\"b\\c\n\x01\xc3\xa9", &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\u000A\\u0001\xc3\xa9\"");
}

TEST(Reply, MethodNotAllowedDetails) {
  Reply r = Reply::MethodNotAllowed("GET");
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(r.body.find("The HTTP method [GET] is not permitted for this endpoint"),
            std::string::npos);
}

}  // namespace
}  // namespace sundial::http
