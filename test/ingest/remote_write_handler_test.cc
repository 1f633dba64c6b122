#include "sundial/ingest/remote_write_handler.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "ingest/fake_storage.h"
#include "ingest/remote_write_encoder.h"

namespace sundial::ingest {
namespace {

using namespace testing;

double StaleNaN() {
  const uint64_t bits = 0x7ff0000000000002ull;
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

class RemoteWriteHandlerTest : public ::testing::Test {
 protected:
  RemoteWriteOutcome Write(const std::string& body, uint64_t max = 1 << 20) {
    RemoteWriteOutcome out;
    handler_.Handle(body, max, &out);
    return out;
  }
  FakeStorage storage_;
  IngestOptions options_;
  PointRules rules_{options_};
  IngestStats stats_;
  RemoteWriteHandler handler_{&storage_, &options_, &rules_, &stats_};
};

TEST_F(RemoteWriteHandlerTest, StoresSamplesWithLabelsAsTags) {
  const auto out = Write(Body({Series({{"__name__", "up"}, {"job", "node"}, {"env", ""}},
                                      {{1, 1000}, {0, 2000}}),
                               Series({{"__name__", "bare"}}, {{2.5, 3000}})}));
  ASSERT_TRUE(out.request_status.ok()) << out.request_status.ToString();
  ASSERT_TRUE(out.storage_status.ok());
  EXPECT_EQ(out.samples, 3u);
  EXPECT_EQ(out.stored, 3u);
  ASSERT_EQ(storage_.keys.size(), 2u);
  EXPECT_EQ(storage_.keys[0], "up job=node");  // the empty label is dropped
  EXPECT_EQ(storage_.keys[1], "bare");         // no tags at all
  ASSERT_EQ(storage_.appended.size(), 3u);
  EXPECT_EQ(storage_.appended[0].t, 1000);
  EXPECT_FALSE(storage_.appended[0].v.is_int());
  EXPECT_EQ(storage_.appended[2].v.float_value(), 2.5);
}

TEST_F(RemoteWriteHandlerTest, PrometheusLabelValuesAreKept) {
  const auto out = Write(Body({Series(
      {{"__name__", "http_requests:rate5m"}, {"instance", "127.0.0.1:9100"}, {"path", "GET /a b"}},
      {{1, 1000}})}));
  ASSERT_TRUE(out.request_status.ok()) << out.request_status.ToString();
  ASSERT_EQ(storage_.keys.size(), 1u);
  EXPECT_EQ(storage_.keys[0], "http_requests:rate5m instance=127.0.0.1:9100 path=GET /a b");
  EXPECT_EQ(stats_.of(Protocol::kRemoteWrite).accepted.load(), 1u);
}

TEST_F(RemoteWriteHandlerTest, RepeatedSeriesHitTheCache) {
  const std::string body = Body({Series({{"__name__", "m"}, {"a", "b"}}, {{1, 1000}})});
  EXPECT_EQ(Write(body).series_misses, 1u);
  EXPECT_EQ(Write(body).series_misses, 0u);
  EXPECT_EQ(storage_.resolve_calls, 1);
  EXPECT_EQ(storage_.appended.size(), 2u);
}

TEST_F(RemoteWriteHandlerTest, StaleMarkersAndNonFiniteValuesAreSkipped) {
  const auto out = Write(Body({Series(
      {{"__name__", "m"}},
      {{StaleNaN(), 1000}, {std::numeric_limits<double>::quiet_NaN(), 2000},
       {std::numeric_limits<double>::infinity(), 3000}, {4, 4000}, {5, -1},
       {6, 10000000000000}})}));
  ASSERT_TRUE(out.request_status.ok());
  EXPECT_EQ(out.stale, 1u);
  EXPECT_EQ(out.rejected, 4u);
  EXPECT_EQ(out.stored, 1u);
  ASSERT_EQ(storage_.appended.size(), 1u);
  EXPECT_EQ(storage_.appended[0].t, 4000);
  EXPECT_EQ(stats_.remote_write_stale.load(), 1u);
  EXPECT_EQ(stats_.of(Protocol::kRemoteWrite).rejected.load(), 4u);
  EXPECT_EQ(stats_.of(Protocol::kRemoteWrite).accepted.load(), 1u);
}

TEST_F(RemoteWriteHandlerTest, BadSeriesAreSkippedAndTheRestStored) {
  const std::string good = Series({{"__name__", "ok"}}, {{1, 1000}});
  struct Case {
    Labels labels;
    const char* error;
  };
  const Case cases[] = {
      {{{"job", "x"}}, "without a __name__"},
      {{{"__name__", ""}}, "Invalid metric name: empty string"},
      {{{"__name__", "m"}, {"", "v"}}, "empty string"},
      {{{"__name__", "m"}, {"a", "1"}, {"a", "2"}}, "repeated label name"},
      {{{"__name__", "m"}, {"a", "x\ny"}}, "control character"},
      {{{"__name__", "m"}, {"a", "1"}, {"b", "1"}, {"c", "1"}, {"d", "1"}, {"e", "1"},
        {"f", "1"}, {"g", "1"}, {"h", "1"}, {"i", "1"}},
       "Too many tags"},
  };
  size_t stored = 0;
  for (const Case& c : cases) {
    const auto out = Write(Body({good, Series(c.labels, {{1, 1000}, {2, 2000}})}));
    EXPECT_TRUE(out.request_status.IsInvalidArgument());
    EXPECT_NE(out.request_status.ToString().find(c.error), std::string::npos)
        << out.request_status.ToString();
    EXPECT_NE(out.request_status.ToString().find("series 1:"), std::string::npos);
    EXPECT_EQ(out.stored, 1u);  // the good series
    EXPECT_EQ(out.rejected, 2u);
    stored += out.stored;
  }
  EXPECT_EQ(storage_.appended.size(), stored);
  const size_t n = sizeof(cases) / sizeof(cases[0]);
  EXPECT_EQ(stats_.of(Protocol::kRemoteWrite).rejected.load(), 2 * n);
  EXPECT_EQ(stats_.of(Protocol::kRemoteWrite).accepted.load(), n);
}

TEST_F(RemoteWriteHandlerTest, SeveralBadSeriesAreCountedInTheError) {
  const auto out = Write(Body({Series({{"job", "x"}}, {{1, 1000}}),
                               Series({{"__name__", "ok"}}, {{1, 1000}}),
                               Series({{"job", "y"}}, {{1, 1000}})}));
  EXPECT_TRUE(out.request_status.IsInvalidArgument());
  EXPECT_NE(out.request_status.ToString().find("series 0:"), std::string::npos);
  EXPECT_NE(out.request_status.ToString().find("(and 1 more bad series)"), std::string::npos)
      << out.request_status.ToString();
  EXPECT_EQ(out.stored, 1u);
}

TEST_F(RemoteWriteHandlerTest, BadBodies) {
  EXPECT_TRUE(Write("not snappy at all").request_status.IsInvalidArgument());
  std::string junk;
  snappy::Compress("\x0a\x05\x01", 3, &junk);  // a truncated timeseries field
  EXPECT_TRUE(Write(junk).request_status.IsInvalidArgument());
  const std::string body = Body({Series({{"__name__", "m"}}, {{1, 1}})});
  EXPECT_TRUE(Write(body, 4).request_status.IsResourceExhausted());
  EXPECT_TRUE(storage_.appended.empty());
  EXPECT_EQ(stats_.remote_write_bad.load(), 3u);
}

TEST_F(RemoteWriteHandlerTest, StorageErrorsAreReported) {
  storage_.fail_append = "disk on fire";
  auto out = Write(Body({Series({{"__name__", "m"}}, {{1, 1000}})}));
  EXPECT_TRUE(out.request_status.ok());
  EXPECT_FALSE(out.storage_status.ok());
  EXPECT_EQ(out.stored, 0u);
  storage_.fail_append.clear();
  storage_.fail_resolve = "index on fire";
  out = Write(Body({Series({{"__name__", "other"}}, {{1, 1000}})}));
  EXPECT_FALSE(out.storage_status.ok());
  EXPECT_TRUE(storage_.appended.empty());
}

TEST_F(RemoteWriteHandlerTest, UnknownMetricsAreSkippedWhenAutoCreateIsOff) {
  options_.auto_create_metrics = false;
  RemoteWriteHandler handler(&storage_, &options_, &rules_, &stats_);
  RemoteWriteOutcome out;
  handler.Handle(Body({Series({{"__name__", "new"}}, {{1, 1000}, {2, 2000}})}), 1 << 20, &out);
  EXPECT_TRUE(out.request_status.ok());
  EXPECT_EQ(out.rejected, 2u);
  EXPECT_EQ(out.stored, 0u);
}

}  // namespace
}  // namespace sundial::ingest
