#include "sundial/ingest/put_json_parser.h"

#include <gtest/gtest.h>

namespace sundial::ingest {
namespace {

bool Parses(std::string_view body) {
  PutJsonParser parser;
  std::string message, details;
  return parser.Parse(body, &message, &details);
}

TEST(PutJsonParser, ViewsIntoTheBodyWithoutEscapes) {
  PutJsonParser parser;
  std::string message, details;
  const std::string body =
      R"( [ {"metric" : "m", "timestamp":1, "value": -1.5e3 , "tags": {"a" : "b"}} , null ] )";
  ASSERT_TRUE(parser.Parse(body, &message, &details)) << details;
  ASSERT_EQ(parser.points().size(), 2u);
  const JsonPutPoint& p = parser.points()[0];
  EXPECT_EQ(p.metric, "m");
  EXPECT_GE(p.metric.data(), body.data());
  EXPECT_LT(p.metric.data(), body.data() + body.size());
  EXPECT_EQ(p.value, "-1.5e3");
  EXPECT_EQ(p.tags_raw, R"({"a" : "b"})");
  EXPECT_EQ(p.tags_count, 1u);
  EXPECT_TRUE(parser.points()[1].is_null);
}

TEST(PutJsonParser, RejectsMalformedJson) {
  for (const char* body : {"[", "[{", "{\"metric\"", "{\"metric\":\"m\"", "[{}", "[{},]",
                           "[1]", "[\"x\"]", "[[]]", "{\"value\":01}", "{\"value\":1.}",
                           "{\"value\":.5}", "{\"value\":+5}", "{\"value\":Nan}",
                           "{\"value\":INF}", "{\"value\":+inf}", "{\"value\":tru}",
                           "{\"metric\":\"a\\x\"}", "{\"metric\":\"a\nb\"}",
                           "{\"metric\":{}}", "{\"tags\":[]}", "{\"tags\":{\"a\":{}}}",
                           "{\"timestamp\":true}", "{\"timestamp\":\"abc\"}",
                           "{\"timestamp\":99999999999999999999}", "{\"metric\":\"\xC3\"}",
                           "{\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]"}) {
    EXPECT_FALSE(Parses(body)) << body;
  }
}

TEST(PutJsonParser, AcceptsJacksonExtras) {
  for (const char* body : {"{\"value\":NaN}", "{\"value\":-Infinity}", "{\"value\":+INF}",
                           "{\"timestamp\":\"12\"}", "{\"timestamp\":1.5e3}",
                           "{\"timestamp\":null}", "{\"x\":{\"y\":[1,2,{\"z\":\"\\u00e9\"}]}}",
                           "{} garbage", "{\"metric\":\"\\ud83d\\ude00\"}"}) {
    EXPECT_TRUE(Parses(body)) << body;
  }
  PutJsonParser parser;
  std::string message, details;
  ASSERT_TRUE(parser.Parse("{\"timestamp\":1.5e3, \"metric\":\"\\ud83d\\ude00\"}", &message,
                           &details));
  EXPECT_EQ(parser.points()[0].timestamp, 1500);
  EXPECT_EQ(parser.points()[0].metric, "\xF0\x9F\x98\x80");
}

TEST(PutJsonParser, EchoEscapesStrings) {
  PutJsonParser parser;
  std::string message, details;
  ASSERT_TRUE(parser.Parse(R"({"metric":"a\"b\u0001","timestamp":5,"tags":{"k":null}})",
                           &message, &details));
  std::string out;
  AppendJsonPutPoint(parser.points()[0], parser.tags(), &out);
  EXPECT_EQ(out, R"({"metric":"a\"b\u0001","timestamp":5,"tags":{"k":null}})");
}

}  // namespace
}  // namespace sundial::ingest

namespace sundial::ingest {
namespace {

std::string Nested(int depth) {
  return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
}

// Unknown fields are skipped whatever they hold, up to a nesting depth
// that bounds the skipper's recursion; deeper input is an error, at once
// and without exhausting the stack, also for a megabyte of brackets.
TEST(PutJsonParser, NestingDepthIsBounded) {
  const auto point = [](const std::string& extra) {
    return R"([{"metric":"m","timestamp":1,"value":1,"tags":{"a":"b"},"x":)" + extra + "}]";
  };
  EXPECT_TRUE(Parses(point(Nested(60))));
  PutJsonParser parser;
  std::string message, details;
  EXPECT_FALSE(parser.Parse(point(Nested(100)), &message, &details));
  EXPECT_NE(details.find("Nesting too deep"), std::string::npos) << message << " " << details;
  EXPECT_FALSE(Parses(point(Nested(1 << 20))));
  EXPECT_FALSE(Parses(Nested(1 << 20)));
  EXPECT_FALSE(Parses(std::string(1 << 20, '{')));
}

}  // namespace
}  // namespace sundial::ingest
