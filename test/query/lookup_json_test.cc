// The JSON bodies of /api/search/lookup and /api/query/last.
#include <gtest/gtest.h>

#include "sundial/query/query_engine.h"

namespace sundial::query {
namespace {

TEST(LookupJson, LimitTakesIntegersOnly) {
  LookupRequest r;
  ASSERT_TRUE(ParseLookupJson(R"({"metric":"m","limit":5})", &r).ok());
  EXPECT_EQ(r.limit, 5);
  // A float is not OpenTSDB's int limit; 1e300 has no int64_t value (the
  // conversion was undefined behaviour), so it leaves the default.
  for (const char* body : {R"({"metric":"m","limit":1e300})", R"({"metric":"m","limit":2.5})"}) {
    r = LookupRequest{};
    ASSERT_TRUE(ParseLookupJson(body, &r).ok()) << body;
    EXPECT_EQ(r.limit, LookupRequest{}.limit) << body;
  }
}

TEST(LastJson, BackScanTakesIntegersOnly) {
  LastRequest r;
  ASSERT_TRUE(ParseLastJson(R"({"queries":[{"metric":"m"}],"backScan":24})", &r).ok());
  EXPECT_EQ(r.back_scan_hours, 24);
  r = LastRequest{};
  ASSERT_TRUE(ParseLastJson(R"({"queries":[{"metric":"m"}],"backScan":-1e300})", &r).ok());
  EXPECT_EQ(r.back_scan_hours, LastRequest{}.back_scan_hours);
}

}  // namespace
}  // namespace sundial::query
