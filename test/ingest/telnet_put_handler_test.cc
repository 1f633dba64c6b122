#include "sundial/ingest/telnet_put_handler.h"

#include <gtest/gtest.h>

#include <string>

#include "ingest/fake_storage.h"

namespace sundial::ingest {
namespace {

class TelnetPutTest : public ::testing::Test {
 protected:
  // Feeds each line to the handler, flushes, returns everything replied.
  std::string Put(const std::string& lines_text) {
    std::string reply;
    size_t pos = 0;
    while (pos < lines_text.size()) {
      size_t nl = lines_text.find('\n', pos);
      if (nl == std::string::npos) nl = lines_text.size();
      handler_->HandlePut(std::string_view(lines_text).substr(pos, nl - pos), &reply);
      pos = nl + 1;
    }
    flush_status_ = handler_->Flush(&reply);
    return reply;
  }
  void Reset(const IngestOptions& options) {
    options_ = options;
    rules_ = std::make_unique<PointRules>(options_);
    handler_ = std::make_unique<TelnetPutHandler>(&storage_, &options_, rules_.get(), &stats_);
  }
  void SetUp() override { Reset(IngestOptions()); }

  FakeStorage storage_;
  IngestOptions options_;
  IngestStats stats_;
  Status flush_status_;
  std::unique_ptr<PointRules> rules_;
  std::unique_ptr<TelnetPutHandler> handler_;
};

TEST_F(TelnetPutTest, GoodPointsAreStoredWithoutReply) {
  EXPECT_EQ(Put("put sys.cpu.user 1356998400 42 host=web01 cpu=0\n"
                "put sys.cpu.user 1356998401 42.5 cpu=0 host=web01\n"),
            "");
  ASSERT_EQ(storage_.appended.size(), 2u);
  EXPECT_EQ(storage_.append_calls, 1);  // one Append per flush
  const auto& a = storage_.appended[0];
  const auto& b = storage_.appended[1];
  EXPECT_EQ(a.series, b.series);  // tag order does not matter
  EXPECT_EQ(storage_.KeyOf(a), "sys.cpu.user cpu=0 host=web01");
  EXPECT_EQ(a.t, 1356998400000);
  EXPECT_TRUE(a.v.is_int());
  EXPECT_EQ(a.v.int_value(), 42);
  EXPECT_FALSE(b.v.is_int());
  EXPECT_EQ(b.v.float_value(), 42.5);
  EXPECT_EQ(stats_.points_stored.load(), 2u);
  EXPECT_EQ(stats_.telnet_puts.load(), 2u);
}

TEST_F(TelnetPutTest, TcollectorDoubleSpacesAndCarriageReturn) {
  EXPECT_EQ(Put("put tcollector.reader.lines_collected 1795321110 5  host=testhost\n"
                "put m 1795321110 6 host=a   dc=x  \r\n"),
            "");
  ASSERT_EQ(storage_.appended.size(), 2u);
  EXPECT_EQ(storage_.KeyOf(storage_.appended[0]),
            "tcollector.reader.lines_collected host=testhost");
  EXPECT_EQ(storage_.KeyOf(storage_.appended[1]), "m dc=x host=a");
}

TEST_F(TelnetPutTest, TimestampsSecondsMillisAndDotted) {
  EXPECT_EQ(Put("put m 4294967295 1 h=a\n"      // largest seconds value
                "put m 4294967296 1 h=a\n"      // smallest ms value
                "put m 1356998400123 1 h=a\n"
                "put m 1356998400.123 1 h=a\n"  // dots removed: ms
                "put m 1.5 1 h=a\n"             // quirk: 15 seconds
                "put m 9999999999999 1 h=a\n"),
            "");
  ASSERT_EQ(storage_.appended.size(), 6u);
  EXPECT_EQ(storage_.appended[0].t, 4294967295000);
  EXPECT_EQ(storage_.appended[1].t, 4294967296);
  EXPECT_EQ(storage_.appended[2].t, 1356998400123);
  EXPECT_EQ(storage_.appended[3].t, 1356998400123);
  EXPECT_EQ(storage_.appended[4].t, 15000);
  EXPECT_EQ(storage_.appended[5].t, 9999999999999);
}

TEST_F(TelnetPutTest, Row1NotEnoughArguments) {
  EXPECT_EQ(Put("put\n"), "put: illegal argument: not enough arguments (need least 4, got 0)\n");
  EXPECT_EQ(Put("put m 1 2\n"),
            "put: illegal argument: not enough arguments (need least 4, got 3)\n");
  EXPECT_EQ(Put("put m\n"), "put: illegal argument: not enough arguments (need least 4, got 1)\n");
}

TEST_F(TelnetPutTest, Row2EmptyMetric) {
  EXPECT_EQ(Put("put  1 2 h=a\n"), "put: illegal argument: empty metric name\n");
}

TEST_F(TelnetPutTest, Row3TimestampParse) {
  EXPECT_EQ(Put("put m 12x 1 h=a\n"), "put: invalid value: Invalid character 'x' in 12x\n");
  EXPECT_EQ(Put("put m  1 h=a\n"), "put: invalid value: Empty string\n");
  EXPECT_EQ(Put("put m - 1 h=a\n"), "put: invalid value: Just a sign, no value: -\n");
  EXPECT_EQ(Put("put m 12345678901234567890 1 h=a\n"),
            "put: invalid value: Value too long: 12345678901234567890\n");
  EXPECT_EQ(Put("put m 9999999999999999999 1 h=a\n"),
            "put: invalid value: Overflow in 9999999999999999999\n");
  // Dots are removed before parsing, also from the message.
  EXPECT_EQ(Put("put m 1.2x 1 h=a\n"), "put: invalid value: Invalid character 'x' in 12x\n");
  EXPECT_EQ(stats_.invalid_values.load(), 6u);
}

TEST_F(TelnetPutTest, Row4NonPositiveTimestamp) {
  EXPECT_EQ(Put("put m 0 1 h=a\n"), "put: illegal argument: invalid timestamp: 0\n");
  EXPECT_EQ(Put("put m -5 1 h=a\n"), "put: illegal argument: invalid timestamp: -5\n");
}

TEST_F(TelnetPutTest, Row5EmptyValue) {
  EXPECT_EQ(Put("put m 1  \n"), "put: illegal argument: empty value\n");
  EXPECT_EQ(Put("put m 1 \n"),
            "put: illegal argument: not enough arguments (need least 4, got 3)\n");
  EXPECT_EQ(Put("put m 1  h=a\n"), "put: illegal argument: empty value\n");
}

TEST_F(TelnetPutTest, Row6InvalidTag) {
  EXPECT_EQ(Put("put m 1 2 host\n"), "put: illegal argument: invalid tag: host\n");
  EXPECT_EQ(Put("put m 1 2 =a\n"), "put: illegal argument: invalid tag: =a\n");
  EXPECT_EQ(Put("put m 1 2 a=\n"), "put: illegal argument: invalid tag: a=\n");
  EXPECT_EQ(Put("put m 1 2 a=b=c\n"), "put: illegal argument: invalid tag: a=b=c\n");
  // Row 6 comes before the value is parsed (row 8).
  EXPECT_EQ(Put("put m 1 x a=b=c\n"), "put: illegal argument: invalid tag: a=b=c\n");
}

TEST_F(TelnetPutTest, Row7DuplicateTag) {
  EXPECT_EQ(Put("put m 1 2 host=a dc=x host=b\n"),
            "put: illegal argument: duplicate tag: host=b, tags={host=a, dc=x}\n");
  // The same value twice is accepted.
  EXPECT_EQ(Put("put m 1 2 host=a host=a\n"), "");
  EXPECT_EQ(storage_.KeyOf(storage_.appended.at(0)), "m host=a");
}

TEST_F(TelnetPutTest, Row8ValueParse) {
  EXPECT_EQ(Put("put m 1 abc h=a\n"), "put: invalid value: Invalid character 'a' in abc\n");
  EXPECT_EQ(Put("put m 1 NaN h=a\n"), "put: invalid value: Invalid character 'N' in NaN\n");
  EXPECT_EQ(Put("put m 1 Infinity h=a\n"),
            "put: invalid value: Invalid character 'I' in Infinity\n");
  EXPECT_EQ(Put("put m 1 False h=a\n"), "put: invalid value: For input string: \"False\"\n");
  EXPECT_EQ(Put("put m 1 1.2.3 h=a\n"), "put: invalid value: multiple points\n");
  EXPECT_EQ(Put("put m 1 0x1.8p1 h=a\n"), "put: invalid value: For input string: \"0x1.8p1\"\n");
  // "true" contains an 'e', so it takes the float path.
  EXPECT_EQ(Put("put m 1 true h=a\n"), "put: invalid value: For input string: \"true\"\n");
  EXPECT_TRUE(storage_.appended.empty());
}

TEST_F(TelnetPutTest, ValueForms) {
  EXPECT_EQ(Put("put m 1 +5 h=a\nput m 2 -0 h=a\nput m 3 -.5 h=a\nput m 4 1e3 h=a\n"
                "put m 5 4.2E-3 h=a\nput m 6 1. h=a\nput m 7 1.5f h=a\n"
                "put m 8 -9223372036854775808 h=a\n"),
            "");
  ASSERT_EQ(storage_.appended.size(), 8u);
  EXPECT_EQ(storage_.appended[0].v.int_value(), 5);
  EXPECT_EQ(storage_.appended[1].v.int_value(), 0);
  EXPECT_EQ(storage_.appended[2].v.float_value(), -0.5);
  EXPECT_EQ(storage_.appended[3].v.float_value(), 1000.0);
  EXPECT_EQ(storage_.appended[4].v.float_value(), 4.2e-3);
  EXPECT_EQ(storage_.appended[5].v.float_value(), 1.0);
  EXPECT_EQ(storage_.appended[6].v.float_value(), 1.5);
  EXPECT_EQ(storage_.appended[7].v.int_value(), INT64_MIN);
}

TEST_F(TelnetPutTest, Row9NonFiniteValue) {
  EXPECT_EQ(Put("put m 1356998400 1e999 h=a\n"),
            "put: illegal argument: value is NaN or Infinite: Infinity for metric=m "
            "timestamp=1356998400\n");
  EXPECT_EQ(Put("put m 1356998400 -1e999 h=a\n"),
            "put: illegal argument: value is NaN or Infinite: -Infinity for metric=m "
            "timestamp=1356998400\n");
  // Also for a series already in the cache.
  EXPECT_EQ(Put("put m 1356998400 1 h=a\nput m 1356998400 1e999 h=a\n"),
            "put: illegal argument: value is NaN or Infinite: Infinity for metric=m "
            "timestamp=1356998400\n");
}

TEST_F(TelnetPutTest, Row10BadTimestamp) {
  EXPECT_EQ(Put("put m 10000000000000 42 host=a\n"),
            "put: illegal argument: bad timestamp=10000000000000 when trying to add "
            "value=[42]/0 to metric=m, tags={host=a}\n");
  EXPECT_EQ(Put("put m 10000000000000 300 host=a\n"),
            "put: illegal argument: bad timestamp=10000000000000 when trying to add "
            "value=[1, 44]/1 to metric=m, tags={host=a}\n");
  EXPECT_EQ(Put("put m 10000000000000 1.5 host=a dc=b\n"),
            "put: illegal argument: bad timestamp=10000000000000 when trying to add "
            "value=[63, -64, 0, 0]/11 to metric=m, tags={host=a, dc=b}\n");
  EXPECT_EQ(Put("put m 10000000000000 0.1 host=a\n"),
            "put: illegal argument: bad timestamp=10000000000000 when trying to add "
            "value=[63, -71, -103, -103, -103, -103, -103, -102]/15 to metric=m, "
            "tags={host=a}\n");
}

TEST_F(TelnetPutTest, Row11NoTags) {
  EXPECT_EQ(Put("put m 1 2 \n"),
            "put: illegal argument: Need at least one tag (metric=m, tags={})\n");
  EXPECT_EQ(Put("put m 1 2   \n"),
            "put: illegal argument: Need at least one tag (metric=m, tags={})\n");
}

TEST_F(TelnetPutTest, Row12TooManyTags) {
  EXPECT_EQ(Put("put m 1 2 t0=v t1=v t2=v t3=v t4=v t5=v t6=v t7=v t8=v\n"),
            "put: illegal argument: Too many tags: 9 maximum allowed: 8, tags: "
            "{t4=v, t5=v, t6=v, t7=v, t8=v, t0=v, t1=v, t2=v, t3=v}\n");
  EXPECT_EQ(Put("put m 1 2 t0=v t1=v t2=v t3=v t4=v t5=v t6=v t7=v\n"), "");
  IngestOptions options;
  options.max_tags = 9;
  Reset(options);
  EXPECT_EQ(Put("put m 1 2 t0=v t1=v t2=v t3=v t4=v t5=v t6=v t7=v t8=v\n"), "");
}

TEST_F(TelnetPutTest, Row13MetricCharacters) {
  EXPECT_EQ(Put("put cpu%user 1 2 host=a\n"),
            "put: illegal argument: Invalid metric name (\"cpu%user\"): illegal character: %\n");
  // Row 12 is checked before row 13.
  EXPECT_EQ(Put("put m% 1 2 \n"),
            "put: illegal argument: Need at least one tag (metric=m%, tags={})\n");
}

TEST_F(TelnetPutTest, Row14TagCharacters) {
  EXPECT_EQ(Put("put m 1 2 ho:st=a\n"),
            "put: illegal argument: Invalid tag name with value [a] (\"ho:st\"): illegal "
            "character: :\n");
  EXPECT_EQ(Put("put m 1 2 host=a,b\n"),
            "put: illegal argument: Invalid tag value with key [host] (\"a,b\"): illegal "
            "character: ,\n");
  // Among several bad tags, the first in HashMap order is reported
  // ({rack, host, dc}).
  EXPECT_EQ(Put("put m 1 2 host=a! dc=b! rack=c!\n"),
            "put: illegal argument: Invalid tag value with key [rack] (\"c!\"): illegal "
            "character: !\n");
  // Row 13 before row 14.
  EXPECT_EQ(Put("put m! 1 2 host=a!\n"),
            "put: illegal argument: Invalid metric name (\"m!\"): illegal character: !\n");
}

TEST_F(TelnetPutTest, NamesUnicodeLettersAndSpecialChars) {
  EXPECT_EQ(Put("put température 1 2 ville=Zürich\n"), "");
  EXPECT_EQ(Put("put m 1 2 host=a\xE2\x82\xAC\n"),  // the euro sign is no letter
            "put: illegal argument: Invalid tag value with key [host] (\"a\xE2\x82\xAC\"): "
            "illegal character: \xE2\x82\xAC\n");
  IngestOptions options;
  options.allow_specialchars = "!:";
  Reset(options);
  EXPECT_EQ(Put("put m! 1 2 ho:st=a!\n"), "");
}

TEST_F(TelnetPutTest, Row15UnknownMetricWhenAutoCreateIsOff) {
  IngestOptions options;
  options.auto_create_metrics = false;
  Reset(options);
  EXPECT_EQ(Put("put sys.new 1 2 host=a\n"),
            "put: unknown metric: No such name for 'metrics': 'sys.new'\n");
  storage_.metrics.insert("sys.new");
  EXPECT_EQ(Put("put sys.new 1 2 host=a\n"), "");
  EXPECT_EQ(stats_.unknown_metrics.load(), 1u);
}

TEST_F(TelnetPutTest, Row16StorageFailureReportsEveryPoint) {
  storage_.fail_append = "disk full";
  EXPECT_EQ(Put("put m 1 2 host=a\nput m 2 2 host=a\n"),
            "put: HBase error: IOError: disk full\nput: HBase error: IOError: disk full\n");
  EXPECT_FALSE(flush_status_.ok());
  EXPECT_EQ(stats_.storage_errors.load(), 2u);
  EXPECT_EQ(stats_.points_stored.load(), 0u);
}

TEST_F(TelnetPutTest, BadLinesDoNotDisturbGoodOnes) {
  EXPECT_EQ(Put("put m 1 2 host=a\nput m x 2 host=a\nput m 3 4 host=a\n"),
            "put: invalid value: Invalid character 'x' in x\n");
  ASSERT_EQ(storage_.appended.size(), 2u);
  EXPECT_EQ(storage_.appended[1].t, 3000);
}

TEST_F(TelnetPutTest, CacheResolvesEachSeriesOnce) {
  std::string lines;
  for (int i = 1; i <= 100; ++i) {
    lines += "put m " + std::to_string(i) + " 1 host=h" + std::to_string(i % 3) + "\n";
  }
  EXPECT_EQ(Put(lines), "");
  EXPECT_EQ(storage_.appended.size(), 100u);
  EXPECT_EQ(storage_.resolve_calls, 3);
  EXPECT_EQ(stats_.series_cache_misses.load(), 3u);
}

TEST_F(TelnetPutTest, FlushesByItselfWhenTheBatchIsFull) {
  IngestOptions options;
  options.max_batch_points = 2;
  Reset(options);
  std::string reply;
  for (int i = 1; i <= 5; ++i) handler_->HandlePut("put m " + std::to_string(i) + " 1 h=a", &reply);
  EXPECT_EQ(storage_.append_calls, 2);
  EXPECT_EQ(handler_->pending(), 1u);
  EXPECT_TRUE(handler_->Flush(&reply).ok());
  EXPECT_EQ(storage_.appended.size(), 5u);
  EXPECT_EQ(reply, "");
}

TEST_F(TelnetPutTest, HandlePutLinesStopsAtTheFirstOtherCommand) {
  std::string lines;
  for (int i = 1; i <= 20; ++i) lines += "put m " + std::to_string(i) + " 1 host=h" + std::to_string(i % 3) + "\n";
  lines += "put m x 1 host=a\n";
  const size_t run = lines.size();
  lines += "version\nput m 99 1 host=a\n";
  std::string reply;
  EXPECT_EQ(handler_->HandlePutLines(lines, &reply), run);
  EXPECT_EQ(reply, "put: invalid value: Invalid character 'x' in x\n");
  EXPECT_TRUE(handler_->Flush(&reply).ok());
  ASSERT_EQ(storage_.appended.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(storage_.appended[i].t, (i + 1) * 1000);
    EXPECT_EQ(storage_.KeyOf(storage_.appended[i]), "m host=h" + std::to_string((i + 1) % 3));
  }
  // "putx" and "put" alone: only an exact "put" command is handled.
  EXPECT_EQ(handler_->HandlePutLines("putx 1 2 3 a=b\n", &reply), 0u);
  EXPECT_EQ(handler_->HandlePutLines("put\n", &reply), 4u);
}

TEST_F(TelnetPutTest, SmallCacheStartsOverAndStaysCorrect) {
  IngestOptions options;
  options.series_cache_entries = 2;
  Reset(options);
  std::string lines;
  for (int i = 0; i < 50; ++i) {
    lines += "put m 1 " + std::to_string(i) + " host=h" + std::to_string(i % 7) + "\n";
  }
  EXPECT_EQ(Put(lines), "");
  ASSERT_EQ(storage_.appended.size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(storage_.KeyOf(storage_.appended[i]), "m host=h" + std::to_string(i % 7));
  }
}

}  // namespace
}  // namespace sundial::ingest
