#include "sundial/query/time_util.h"

#include <gtest/gtest.h>

namespace sundial::query {
namespace {

constexpr Timestamp kNow = 1700000000123;

Timestamp Parse(const std::string& s, const TimeZone& tz = TimeZone()) {
  Timestamp t = -1;
  Status st = ParseDateTime(s, kNow, tz, &t);
  EXPECT_TRUE(st.ok()) << s << ": " << st.ToString();
  return t;
}

std::string Err(const std::string& s) {
  Timestamp t = 0;
  Status st = ParseDateTime(s, kNow, TimeZone(), &t);
  EXPECT_FALSE(st.ok()) << s;
  return st.message();
}

TEST(TimeUtil, Durations) {
  int64_t ms = 0;
  ASSERT_TRUE(ParseDuration("500ms", &ms).ok());
  EXPECT_EQ(ms, 500);
  ASSERT_TRUE(ParseDuration("1m", &ms).ok());
  EXPECT_EQ(ms, 60000);
  ASSERT_TRUE(ParseDuration("2H", &ms).ok());
  EXPECT_EQ(ms, 7200000);
  ASSERT_TRUE(ParseDuration("1n", &ms).ok());
  EXPECT_EQ(ms, 30LL * 86400000);
  ASSERT_TRUE(ParseDuration("1y", &ms).ok());
  EXPECT_EQ(ms, 365LL * 86400000);
  EXPECT_EQ(ParseDuration("1x", &ms).message(), "Invalid duration (suffix): 1x");
  EXPECT_EQ(ParseDuration("0s", &ms).message(), "Zero or negative duration: 0s");
  EXPECT_FALSE(ParseDuration("15", &ms).ok());
  EXPECT_FALSE(ParseDuration("", &ms).ok());
  ASSERT_TRUE(ParseDuration("1.5h", &ms).ok());  // OpenTSDB reads the leading digits only
  EXPECT_EQ(ms, 3600000);
  EXPECT_EQ(ParseDuration(".5s", &ms).message(), "Invalid duration (number): .5s");
}

TEST(TimeUtil, TimeForms) {
  EXPECT_EQ(Parse("now"), kNow);
  EXPECT_EQ(Parse("NOW"), kNow);
  EXPECT_EQ(Parse("1h-ago"), kNow - 3600000);
  EXPECT_EQ(Parse("500ms-ago"), kNow - 500);
  EXPECT_EQ(Parse("1356998400"), 1356998400000);
  EXPECT_EQ(Parse("1356998400000"), 1356998400000);
  EXPECT_EQ(Parse("13559616000"), 13559616000);  // 11 digits: ms
  EXPECT_EQ(Parse("1356998400123ms"), 1356998400123);
  // Digit counts around the fast path (<= 18 digits) and the seconds /
  // milliseconds boundary (10 digits).
  EXPECT_EQ(Parse("0000000012"), 12000);
  EXPECT_EQ(Parse("00000000012"), 12);
  EXPECT_EQ(Parse("999999999999999999"), 999999999999999999);
  EXPECT_EQ(Parse("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(Parse("0000000000000000000000012"), 12);
  EXPECT_EQ(Parse("0"), 0);
  EXPECT_EQ(Parse("1355961603.418"), 1355961603418);
  EXPECT_EQ(Parse("1355961603.41"), 135596160341);  // OpenTSDB quirk
  EXPECT_EQ(Parse("1355961603.4"), 13559616034);
  EXPECT_EQ(Parse("2013/01/01"), 1356998400000);
  EXPECT_EQ(Parse("2013/01/01-12:00"), 1357041600000);
  EXPECT_EQ(Parse("2013/01/01 12:00:30"), 1357041630000);
}

TEST(TimeUtil, TimeErrors) {
  EXPECT_EQ(Err("-1"), "Invalid time: -1. Negative timestamps are not supported.");
  EXPECT_NE(Err("1355961603.4189").find("Millisecond timestamps must be"), std::string::npos);
  EXPECT_EQ(Err("2013/01/0"), "Invalid absolute date: 2013/01/0");
  EXPECT_EQ(Err("2013/13/01").rfind("Invalid date: 2013/13/01", 0), 0u);
  EXPECT_EQ(Err("1x-ago"), "Invalid duration (suffix): 1x");
  EXPECT_EQ(Err("abc").rfind("Invalid time: abc", 0), 0u);
}

// Every error message of the duration and time parsers.
TEST(TimeUtil, ErrorMessagesPinned) {
  const std::pair<const char*, const char*> durations[] = {
      {"", "Cannot parse null or empty duration"},
      {"15", "Invalid duration, must have an integer and unit: 15"},
      {"x", "Invalid duration (number): x"},
      {"-1m", "Invalid duration (number): -1m"},
      {"0m", "Zero or negative duration: 0m"},
      {"99999999999999999999s", "Invalid duration (number): 99999999999999999999s"},
      {"9223372036854775807s", "Duration must be < Long.MAX_VALUE ms: 9223372036854775807s"},
      {"1q", "Invalid duration (suffix): 1q"},
  };
  for (const auto& [in, want] : durations) {
    int64_t ms = 0;
    EXPECT_EQ(ParseDuration(in, &ms).message(), want) << in;
  }
  int64_t ms = 0;
  ASSERT_TRUE(ParseDuration("9223372036854775807ms", &ms).ok());
  EXPECT_EQ(ms, INT64_MAX);
  const std::pair<const char*, const char*> times[] = {
      {"", "Invalid time: . Null or empty date"},
      {"2013/01/01-12:0x", "Invalid date: 2013/01/01-12:0x. Unparseable date: \"2013/01/01-12:0x\""},
      {"1:2", "Invalid absolute date: 1:2"},
      {"9223372036854775808", "Invalid time: 9223372036854775808. For input string: "
                              "\"9223372036854775808\""},
      {"99999999999999999999ms", "Invalid time: 99999999999999999999ms. For input string: "
                                 "\"99999999999999999999ms\""},
      {"12.5", "Invalid time: 12.5. Millisecond timestamps must be in the format <seconds>.<ms> "
               "where the milliseconds are limited to 3 digits"},
      {"-ago", "Invalid time: -ago. For input string: \"-ago\""},
      {"1x-AGO", "Invalid duration (suffix): 1x"},
      {"0s-ago", "Zero or negative duration: 0s"},
  };
  for (const auto& [in, want] : times) EXPECT_EQ(Err(in), want) << in;
  EXPECT_EQ(Parse("+5"), 5000);
}

TEST(TimeUtil, TimeZones) {
  TimeZone berlin;
  ASSERT_TRUE(TimeZone::Load("Europe/Berlin", &berlin).ok());
  // 2013-01-01 00:00 CET = 2012-12-31 23:00 UTC.
  EXPECT_EQ(Parse("2013/01/01", berlin), 1356994800000);
  // Summer: CEST (+2).
  EXPECT_EQ(Parse("2013/07/01", berlin), 1372629600000);
  TimeZone bad;
  EXPECT_EQ(TimeZone::Load("Not/AZone", &bad).message(), "Invalid timezone name: Not/AZone");
  EXPECT_FALSE(TimeZone::Load("../etc/passwd", &bad).ok());
}

TEST(TimeUtil, CalendarBuckets) {
  const TimeZone utc;
  // 2013-01-15 13:45:10 UTC
  const int64_t ts = 1358257510000;
  EXPECT_EQ(PreviousInterval(ts, 1, CalendarUnit::kDay, utc), 1358208000000);    // 01-15 00:00
  EXPECT_EQ(PreviousInterval(ts, 1, CalendarUnit::kHour, utc), 1358254800000);   // 13:00
  EXPECT_EQ(PreviousInterval(ts, 15, CalendarUnit::kMinute, utc), 1358257500000);  // 13:45
  EXPECT_EQ(PreviousInterval(ts, 1, CalendarUnit::kMonth, utc), 1356998400000);  // 01-01
  EXPECT_EQ(PreviousInterval(ts, 1, CalendarUnit::kWeek, utc), 1358035200000);   // Sun 01-13
  TimeZone berlin;
  ASSERT_TRUE(TimeZone::Load("Europe/Berlin", &berlin).ok());
  // Local day in Berlin starts 23:00 UTC the previous day in winter.
  EXPECT_EQ(PreviousInterval(ts, 1, CalendarUnit::kDay, berlin), 1358204400000);
  // DST day (2013-03-31) is 23 hours long.
  const int64_t mar31 = PreviousInterval(1364731200000, 1, CalendarUnit::kDay, berlin);
  EXPECT_EQ(AddCalendar(mar31, CalendarUnit::kDay, 1, berlin) - mar31, 23 * 3600000LL);
  EXPECT_EQ(AddCalendar(1359590400000 /* 01-31 */, CalendarUnit::kMonth, 1, utc),
            1362009600000 /* 02-28 */);
}

}  // namespace
}  // namespace sundial::query
