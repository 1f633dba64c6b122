#include "sundial/ingest/http_put_handler.h"

#include <gtest/gtest.h>

#include "ingest/fake_storage.h"

namespace sundial::ingest {
namespace {

class HttpPutTest : public ::testing::Test {
 protected:
  HttpPutOutcome Put(std::string_view body, bool details = true) {
    HttpPutOutcome out;
    handler_.Handle(body, details, &out);
    return out;
  }
  // The details error of a single bad point.
  std::string ErrorOf(std::string_view body) {
    const HttpPutOutcome out = Put(body);
    EXPECT_FALSE(out.request_error) << out.message << " " << out.details;
    EXPECT_EQ(out.failed, 1u) << body;
    const std::string prefix = "{\"error\":\"";
    const auto& e = out.errors_json;
    if (e.compare(0, prefix.size(), prefix) != 0) return "<no error> " + e;
    return e.substr(prefix.size(), e.find("\",\"datapoint\"") - prefix.size());
  }

  FakeStorage storage_;
  IngestOptions options_;
  PointRules rules_{options_};
  IngestStats stats_;
  HttpPutHandler handler_{&storage_, &options_, &rules_, &stats_};
};

constexpr std::string_view kGood =
    R"({"metric":"sys.cpu.user","timestamp":1365465600,"value":42,"tags":{"host":"web01"}})";

TEST_F(HttpPutTest, SingleObjectAndArray) {
  HttpPutOutcome out = Put(kGood);
  EXPECT_EQ(out.success, 1u);
  EXPECT_EQ(out.failed, 0u);
  EXPECT_EQ(out.errors_json, "");
  out = Put(R"([{"metric":"m","timestamp":1365465600000,"value":"42.5","tags":{"a":"b"}},
               {"metric":"m","timestamp":1365465601,"value":1e3,"tags":{"a":"b","c":"d"}}])");
  EXPECT_EQ(out.success, 2u);
  ASSERT_EQ(storage_.appended.size(), 3u);
  EXPECT_EQ(storage_.appended[0].v.int_value(), 42);
  EXPECT_EQ(storage_.appended[0].t, 1365465600000);
  EXPECT_EQ(storage_.appended[1].v.float_value(), 42.5);
  EXPECT_EQ(storage_.appended[1].t, 1365465600000);
  EXPECT_EQ(storage_.appended[2].v.float_value(), 1000.0);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[2]), "m a=b c=d");
  EXPECT_EQ(storage_.append_calls, 2);  // one per request
  EXPECT_EQ(stats_.points_stored.load(), 3u);
}

TEST_F(HttpPutTest, WholeRequestErrors) {
  HttpPutOutcome out = Put("");
  EXPECT_TRUE(out.request_error);
  EXPECT_EQ(out.message, "Missing request content");
  out = Put(" \n ");
  EXPECT_EQ(out.message, "Missing request content");
  out = Put("\"Hello World\"");
  EXPECT_EQ(out.message, "The JSON must start as an object or an array");
  out = Put(R"([{"metric":"m","timestamp":1,"value":Nan,"tags":{"a":"b"}}])");
  EXPECT_EQ(out.message, "Unable to parse the given JSON");
  EXPECT_NE(out.details, "");
  out = Put("[]");
  EXPECT_EQ(out.message, "No datapoints found in content");
  // A JSON error anywhere rejects every point.
  out = Put(std::string("[") + std::string(kGood) + ",{\"metric\":}]");
  EXPECT_TRUE(out.request_error);
  EXPECT_TRUE(storage_.appended.empty());
}

TEST_F(HttpPutTest, ValidationRowsInOrder) {
  EXPECT_EQ(ErrorOf("[null]"), "Unexpected null datapoint encountered in set.");
  EXPECT_EQ(ErrorOf(R"({"timestamp":1,"value":1,"tags":{"a":"b"}})"), "Metric name was empty");
  EXPECT_EQ(ErrorOf(R"({"metric":"","timestamp":1,"value":1,"tags":{"a":"b"}})"),
            "Metric name was empty");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","value":1,"tags":{"a":"b"}})"), "Invalid timestamp");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":-1,"value":1,"tags":{"a":"b"}})"),
            "Invalid timestamp");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":null,"tags":{"a":"b"}})"),
            "Empty value");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":""})"), "Empty value");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":42})"), "Missing tags");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":42,"tags":{}})"), "Missing tags");
  for (const char* v : {"\"notanumber\"", "NaN", "+INF", "-INF", "Infinity", "-Infinity",
                        "true", "\"1.2.3\""}) {
    EXPECT_EQ(ErrorOf(std::string(R"({"metric":"m","timestamp":1,"value":)") + v +
                      R"(,"tags":{"a":"b"}})"),
              "Unable to parse value to a number")
        << v;
  }
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1356998400,"value":1e999,"tags":{"a":"b"}})"),
            "value is NaN or Infinite: Infinity for metric=m timestamp=1356998400");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":10000000000000,"value":1,"tags":{"a":"b"}})"),
            "bad timestamp=10000000000000 when trying to add value=[1]/0 to metric=m, "
            "tags={a=b}");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":1,"tags":{"t0":"v","t1":"v",
      "t2":"v","t3":"v","t4":"v","t5":"v","t6":"v","t7":"v","t8":"v"}})"),
            "Too many tags: 9 maximum allowed: 8, tags: {t4=v, t5=v, t6=v, t7=v, t8=v, t0=v, "
            "t1=v, t2=v, t3=v}");
  EXPECT_EQ(ErrorOf(R"({"metric":"m%","timestamp":1,"value":1,"tags":{"a":"b"}})"),
            "Invalid metric name (\\\"m%\\\"): illegal character: %");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":1,"tags":{"a":""}})"),
            "Invalid tag value with key [a]: empty string");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":1,"tags":{"a":null}})"),
            "Invalid tag value with key [a]: null");
  EXPECT_EQ(ErrorOf(R"({"metric":"m","timestamp":1,"value":1,"tags":{"":"b"}})"),
            "Invalid tag name with value [b]: empty string");
  EXPECT_TRUE(storage_.appended.empty());
}

TEST_F(HttpPutTest, DetailsEchoTheDatapoint) {
  const HttpPutOutcome out = Put(
      R"([{"metric":"sys.cpu.user","timestamp":1365465600,"value":"notanumber","tags":{"host":"web01"}},)"
      R"({"metric":"sys.cpu.user","timestamp":1365465600,"value":42,"tags":{"host":"web01"}}])");
  EXPECT_EQ(out.success, 1u);
  EXPECT_EQ(out.failed, 1u);
  EXPECT_EQ(out.errors_json,
            R"({"error":"Unable to parse value to a number","datapoint":{"metric":"sys.cpu.user",)"
            R"("timestamp":1365465600,"value":"notanumber","tags":{"host":"web01"}}})");
  const HttpPutOutcome quiet = Put(R"({"metric":"m","timestamp":1,"value":"x","tags":{"a":"b"}})",
                                   /*details=*/false);
  EXPECT_EQ(quiet.failed, 1u);
  EXPECT_EQ(quiet.errors_json, "");
}

TEST_F(HttpPutTest, ValueTypingFollowsTheNumbersText) {
  const HttpPutOutcome out = Put(R"([
    {"metric":"m","timestamp":1,"value":42.22e3,"tags":{"a":"b"}},
    {"metric":"m","timestamp":2,"value":-42,"tags":{"a":"b"}},
    {"metric":"m","timestamp":3,"value":42.0,"tags":{"a":"b"}},
    {"metric":"m","timestamp":4,"value":"-42.22e-3","tags":{"a":"b"}}])");
  EXPECT_EQ(out.success, 4u);
  ASSERT_EQ(storage_.appended.size(), 4u);
  EXPECT_EQ(storage_.appended[0].v.float_value(), 42220.0);
  EXPECT_EQ(storage_.appended[1].v.int_value(), -42);
  EXPECT_FALSE(storage_.appended[2].v.is_int());
  EXPECT_EQ(storage_.appended[3].v.float_value(), -42.22e-3);
}

TEST_F(HttpPutTest, JacksonCoercions) {
  const HttpPutOutcome out = Put(R"([
    {"metric":42,"timestamp":"1365465600","value":1,"tags":{"a":7}},
    {"metric":"m","timestamp":1365465600.9,"value":1,"tags":{"a":"b"},"extra":[1,{"x":null}]},
    {"metric":"m","timestamp":1,"value":1,"tags":{"a":"b","a":"c"}}]  trailing junk)");
  EXPECT_FALSE(out.request_error) << out.details;
  EXPECT_EQ(out.success, 3u) << out.errors_json;
  ASSERT_EQ(storage_.appended.size(), 3u);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[0]), "42 a=7");
  EXPECT_EQ(storage_.appended[1].t, 1365465600000);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[2]), "m a=c");
}

TEST_F(HttpPutTest, RepeatedTagObjectsAreReusedOnlyWhenIdentical) {
  const HttpPutOutcome out = Put(R"([
    {"metric":"m","timestamp":1,"value":1,"tags":{"a":"b"}},
    {"metric":"m","timestamp":2,"value":1,"tags":{"a":"b"}},
    {"metric":"m","timestamp":3,"value":1,"tags":{"a":"bc"}},
    {"metric":"m","timestamp":4,"value":1,"tags":{"a":"b"} },
    {"metric":"m","timestamp":5,"value":1,"tags":{"a":"b","c":"d"}}])");
  EXPECT_EQ(out.success, 5u) << out.errors_json;
  ASSERT_EQ(storage_.appended.size(), 5u);
  const char* want[] = {"m a=b", "m a=b", "m a=bc", "m a=b", "m a=b c=d"};
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(storage_.KeyOf(storage_.appended[i]), want[i]);
}

TEST_F(HttpPutTest, EscapedStrings) {
  const HttpPutOutcome out =
      Put(R"({"metric":"caf\u00e9.temp","timestamp":1,"value":1,"tags":{"h\u0065st":"a\/b"}})");
  EXPECT_EQ(out.success, 1u) << out.errors_json;
  ASSERT_EQ(storage_.appended.size(), 1u);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[0]), "caf\xC3\xA9.temp hest=a/b");
}

TEST_F(HttpPutTest, StorageFailureAcknowledgesNothing) {
  storage_.fail_append = "disk full";
  const HttpPutOutcome out = Put(kGood);
  EXPECT_FALSE(out.storage_status.ok());
  EXPECT_EQ(out.success, 0u);
  EXPECT_EQ(stats_.points_stored.load(), 0u);
}

}  // namespace
}  // namespace sundial::ingest
