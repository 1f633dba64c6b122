#include "sundial/ingest/line_protocol_handler.h"

#include <gtest/gtest.h>

#include "ingest/fake_storage.h"

namespace sundial::ingest {
namespace {

class LineProtocolHandlerTest : public ::testing::Test {
 protected:
  IngestOptions options_;
  PointRules rules_{options_};
  IngestStats stats_;
  FakeStorage storage_;
};

TEST_F(LineProtocolHandlerTest, EachNumericFieldIsASeries) {
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  LineProtocolOutcome out;
  h.HandleBody("# comment\n\ncpu,host=a user=1.5,sys=2i,up=true,msg=\"x\" 1700000000\n"
               "mem free=7u\n",
               Precision::kSecond, 42, &out);
  EXPECT_TRUE(out.storage_status.ok());
  EXPECT_EQ(out.lines, 2u);
  EXPECT_EQ(out.bad_lines, 0u);
  EXPECT_EQ(out.points, 4u);
  EXPECT_EQ(out.string_fields, 1u);
  ASSERT_EQ(storage_.appended.size(), 4u);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[0]), "cpu.user host=a");
  EXPECT_EQ(storage_.appended[0].t, 1700000000000);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[1]), "cpu.sys host=a");
  EXPECT_EQ(storage_.appended[1].v.int_value(), 2);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[2]), "cpu.up host=a");
  EXPECT_EQ(storage_.appended[2].v.int_value(), 1);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[3]), "mem.free");  // no tags
  EXPECT_EQ(storage_.appended[3].t, 42);                        // receive time
  EXPECT_EQ(stats_.of(Protocol::kInflux).accepted.load(), 4u);
  EXPECT_EQ(stats_.influx_string_fields.load(), 1u);
}

TEST_F(LineProtocolHandlerTest, SeparatorOptionAndUnescapedNames) {
  options_.influx_separator = "_";
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  LineProtocolOutcome out;
  h.HandleBody(R"(°C,entity\ id=living\ room value=21.5 1)", Precision::kMillisecond, 0, &out);
  ASSERT_EQ(out.points, 1u) << out.first_error;
  EXPECT_EQ(storage_.KeyOf(storage_.appended[0]), "°C_value entity id=living room");
}

TEST_F(LineProtocolHandlerTest, PartialWriteKeepsGoodLinesAndNamesFirstBad) {
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  LineProtocolOutcome out;
  h.HandleBody("a f=1 1\nbad\nb f=2 2\ncpu,x=1,x=2 f=1\n", Precision::kMillisecond, 0, &out);
  EXPECT_EQ(out.lines, 4u);
  EXPECT_EQ(out.bad_lines, 2u);
  EXPECT_EQ(out.points, 2u);
  EXPECT_EQ(out.first_error, "unable to parse 'bad': missing fields");
  EXPECT_EQ(storage_.appended.size(), 2u);
  EXPECT_EQ(stats_.of(Protocol::kInflux).rejected.load(), 2u);
}

TEST_F(LineProtocolHandlerTest, TimeOutsideRangeAndNegative) {
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  std::string error;
  EXPECT_FALSE(h.HandleLine("a f=1 -1000", Precision::kSecond, 0, &error));
  EXPECT_EQ(error, "unable to parse 'a f=1 -1000': time outside range");
  EXPECT_FALSE(h.HandleLine("a f=1 9999999999999999", Precision::kHour, 0, &error));
  EXPECT_TRUE(h.HandleLine("a f=1 1999999", Precision::kNanosecond, 0, &error));
  size_t n = 0;
  ASSERT_TRUE(h.Flush(&n).ok());
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(storage_.appended[0].t, 1);
}

TEST_F(LineProtocolHandlerTest, TooManyTagsRejected) {
  options_.max_tags = 1;
  PointRules rules(options_);
  LineProtocolHandler h(&storage_, &options_, &rules, &stats_);
  std::string error;
  EXPECT_FALSE(h.HandleLine("a,x=1,y=2 f=1", Precision::kSecond, 0, &error));
  EXPECT_NE(error.find("Too many tags"), std::string::npos) << error;
  EXPECT_EQ(stats_.illegal_arguments.load(), 0u);  // published on flush
  size_t n = 0;
  ASSERT_TRUE(h.Flush(&n).ok());
  EXPECT_EQ(stats_.illegal_arguments.load(), 1u);
}

TEST_F(LineProtocolHandlerTest, ControlCharactersInNamesRejected) {
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  std::string error;
  EXPECT_FALSE(h.HandleLine("a\x01 f=1", Precision::kSecond, 0, &error));
  EXPECT_NE(error.find("control character"), std::string::npos) << error;
}

TEST_F(LineProtocolHandlerTest, StorageFailureIsReported) {
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  storage_.fail_append = "disk full";
  LineProtocolOutcome out;
  h.HandleBody("a f=1 1\n", Precision::kSecond, 0, &out);
  EXPECT_FALSE(out.storage_status.ok());
  EXPECT_EQ(out.points, 0u);
  EXPECT_EQ(stats_.of(Protocol::kInflux).accepted.load(), 0u);
}

TEST_F(LineProtocolHandlerTest, BatchesFlushWhenFull) {
  options_.max_batch_points = 3;
  LineProtocolHandler h(&storage_, &options_, &rules_, &stats_);
  LineProtocolOutcome out;
  std::string body;
  for (int i = 0; i < 10; ++i) body += "m,h=a f=1,g=2 " + std::to_string(i) + "\n";
  h.HandleBody(body, Precision::kSecond, 0, &out);
  EXPECT_EQ(out.points, 20u);
  EXPECT_EQ(storage_.appended.size(), 20u);
  EXPECT_EQ(stats_.series_cache_misses.load(), 2u);  // one per series: then cached
}

}  // namespace
}  // namespace sundial::ingest
