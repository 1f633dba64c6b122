#include "sundial/ingest/point_writer.h"

#include <gtest/gtest.h>

#include "ingest/fake_storage.h"

namespace sundial::ingest {
namespace {

class PointWriterTest : public ::testing::Test {
 protected:
  IngestOptions options_;
  PointRules rules_{options_};
  IngestStats stats_;
  FakeStorage storage_;
};

TEST_F(PointWriterTest, SeriesWithoutTagsOnlyWhenPolicyAllows) {
  PointWriter any(&storage_, &options_, &rules_, &stats_, Protocol::kInflux, TagPolicy::kAny);
  SeriesId id = kInvalidSeriesId;
  PutError error;
  ASSERT_TRUE(any.Resolve("cpu.usage", nullptr, 0, "cpu.usage", "", &id, &error))
      << error.message;
  EXPECT_EQ(any.Lookup("cpu.usage", ""), id);

  PointWriter one(&storage_, &options_, &rules_, &stats_, Protocol::kPut, TagPolicy::kAtLeastOne);
  SeriesId id2 = kInvalidSeriesId;
  EXPECT_FALSE(one.Resolve("cpu.usage", nullptr, 0, "cpu.usage", "", &id2, &error));
  EXPECT_EQ(error.message, "Need at least one tag (metric=cpu.usage, tags={})");
}

TEST_F(PointWriterTest, FlushAppendsOnceAndCountsPerProtocol) {
  PointWriter w(&storage_, &options_, &rules_, &stats_, Protocol::kInflux, TagPolicy::kAny);
  const storage::TagRef tags[] = {{"host", "a"}};
  SeriesId id = kInvalidSeriesId;
  PutError error;
  ASSERT_TRUE(w.Resolve("m", tags, 1, "m", "host=a", &id, &error));
  w.Add(id, 1000, Value::Int(1));
  w.Add(id, 2000, Value::Float(2.5));
  w.Reject(PutErrorKind::kInvalidValue);
  w.RejectOther(2);
  EXPECT_EQ(w.pending(), 2u);
  EXPECT_EQ(stats_.of(Protocol::kInflux).accepted.load(), 0u);  // not before the WAL
  size_t n = 0;
  ASSERT_TRUE(w.Flush(&n).ok());
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(w.pending(), 0u);
  ASSERT_EQ(storage_.appended.size(), 2u);
  EXPECT_EQ(storage_.appended[1].t, 2000);
  EXPECT_EQ(stats_.of(Protocol::kInflux).accepted.load(), 2u);
  EXPECT_EQ(stats_.of(Protocol::kInflux).rejected.load(), 3u);
  EXPECT_EQ(stats_.of(Protocol::kPut).accepted.load(), 0u);
  EXPECT_EQ(stats_.invalid_values.load(), 1u);
  EXPECT_EQ(stats_.points_stored.load(), 2u);
  EXPECT_EQ(stats_.series_cache_misses.load(), 1u);
}

TEST_F(PointWriterTest, StorageFailureAcknowledgesNothing) {
  PointWriter w(&storage_, &options_, &rules_, &stats_, Protocol::kGraphite, TagPolicy::kAny);
  SeriesId id = kInvalidSeriesId;
  PutError error;
  ASSERT_TRUE(w.Resolve("m", nullptr, 0, "m", "", &id, &error));
  w.Add(id, 1, Value::Int(1));
  storage_.fail_append = "disk gone";
  size_t n = 0;
  EXPECT_FALSE(w.Flush(&n).ok());
  EXPECT_EQ(n, 1u);
  EXPECT_EQ(w.pending(), 0u);
  EXPECT_EQ(stats_.of(Protocol::kGraphite).accepted.load(), 0u);
  EXPECT_EQ(stats_.of(Protocol::kGraphite).rejected.load(), 1u);
  EXPECT_EQ(stats_.storage_errors.load(), 1u);
}

TEST_F(PointWriterTest, FullAtMaxBatchPoints) {
  options_.max_batch_points = 2;
  PointWriter w(&storage_, &options_, &rules_, &stats_, Protocol::kInflux, TagPolicy::kAny);
  w.Add(0, 1, Value::Int(1));
  EXPECT_FALSE(w.full());
  w.Add(0, 2, Value::Int(1));
  EXPECT_TRUE(w.full());
}

TEST(ProtocolName, Labels) {
  EXPECT_EQ(ProtocolName(Protocol::kPut), "put");
  EXPECT_EQ(ProtocolName(Protocol::kHttpPut), "http_put");
  EXPECT_EQ(ProtocolName(Protocol::kInflux), "influx");
  EXPECT_EQ(ProtocolName(Protocol::kRemoteWrite), "remote_write");
  EXPECT_EQ(ProtocolName(Protocol::kGraphite), "graphite");
}

}  // namespace
}  // namespace sundial::ingest
