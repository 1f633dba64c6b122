#include "sundial/ingest/graphite_handler.h"

#include <gtest/gtest.h>

#include "ingest/fake_storage.h"

namespace sundial::ingest {
namespace {

constexpr Timestamp kNow = 1700000000000;

class GraphiteHandlerTest : public ::testing::Test {
 protected:
  GraphiteOutcome Send(std::string_view lines) {
    GraphiteOutcome out;
    handler_.HandleLines(lines, kNow, &out);
    return out;
  }
  FakeStorage storage_;
  IngestOptions options_;
  PointRules rules_{options_};
  IngestStats stats_;
  GraphiteHandler handler_{&storage_, &options_, &rules_, &stats_};
};

TEST_F(GraphiteHandlerTest, StoresPlainAndTaggedLines) {
  const auto out = Send(
      "servers.a.cpu 0.5 1700000001\r\n"
      "disk.used;rack=a1;dc=dc1 42 1700000002\n"
      "\n"
      "servers.a.cpu 0.75 -1\n");
  EXPECT_EQ(out.lines, 3u);
  EXPECT_EQ(out.stored, 3u);
  EXPECT_EQ(out.rejected, 0u);
  ASSERT_EQ(storage_.keys.size(), 2u);
  EXPECT_EQ(storage_.keys[0], "servers.a.cpu");
  EXPECT_EQ(storage_.keys[1], "disk.used dc=dc1 rack=a1");
  ASSERT_EQ(storage_.appended.size(), 3u);
  EXPECT_EQ(storage_.appended[0].t, 1700000001000);
  EXPECT_EQ(storage_.appended[2].t, kNow);
  EXPECT_EQ(storage_.appended[2].series, storage_.appended[0].series);
}

TEST_F(GraphiteHandlerTest, BadLinesAreCountedAndOthersKept) {
  const auto out = Send(
      "good 1 1700000000\n"
      "bad\n"
      "worse;k 1 1\n"
      "x;k=~v 1 1\n"
      "ctl\x02 1 1\n"
      "also.good 2\n");
  EXPECT_EQ(out.lines, 6u);
  EXPECT_EQ(out.rejected, 4u);
  EXPECT_EQ(out.stored, 2u);
  EXPECT_NE(out.first_error.find("\"bad\""), std::string::npos) << out.first_error;
  EXPECT_EQ(stats_.of(Protocol::kGraphite).rejected.load(), 4u);
  EXPECT_EQ(stats_.of(Protocol::kGraphite).accepted.load(), 2u);
}

TEST_F(GraphiteHandlerTest, FlushesInBatches) {
  options_.max_batch_points = 2;
  GraphiteHandler handler(&storage_, &options_, &rules_, &stats_);
  GraphiteOutcome out;
  handler.HandleLines("a 1 1\na 2 2\na 3 3\n", kNow, &out);
  EXPECT_EQ(out.stored, 3u);
  EXPECT_EQ(storage_.append_calls, 2);
}

TEST_F(GraphiteHandlerTest, StorageFailureIsReported) {
  storage_.fail_append = "disk on fire";
  const auto out = Send("a 1 1\n");
  EXPECT_FALSE(out.storage_status.ok());
  EXPECT_EQ(out.stored, 0u);
}

}  // namespace
}  // namespace sundial::ingest
