#include "sundial/ingest/remote_write.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include <gtest/gtest.h>
#include <snappy.h>

#include "ingest/remote_write_encoder.h"

namespace sundial::ingest {
namespace {

using namespace testing;

std::string OneSeries() {
  std::string ts;
  PutBytes(1, Label("__name__", "up"), &ts);
  PutBytes(1, Label("job", "node"), &ts);
  PutBytes(2, Sample(1.5, 1700000000123), &ts);
  PutBytes(2, Sample(-2, -5), &ts);
  std::string req;
  PutBytes(1, ts, &req);
  return req;
}

TEST(RemoteWrite, DecodesSeriesLabelsAndSamples) {
  const std::string req = OneSeries();
  WriteRequestView view;
  ASSERT_TRUE(DecodeWriteRequest(req, &view).ok());
  ASSERT_EQ(view.series().size(), 1u);
  const RemoteSeries& s = view.series()[0];
  std::vector<RemoteLabel> labels;
  ASSERT_TRUE(WriteRequestView::DecodeLabels(s, &labels).ok());
  ASSERT_EQ(labels.size(), 2u);
  EXPECT_EQ(labels[0].name, "__name__");
  EXPECT_EQ(labels[0].value, "up");
  EXPECT_EQ(labels[1].name, "job");
  EXPECT_EQ(labels[1].value, "node");
  ASSERT_EQ(s.num_samples, 2u);
  EXPECT_EQ(view.samples(s)[0].value, 1.5);
  EXPECT_EQ(view.samples(s)[0].timestamp_ms, 1700000000123);
  EXPECT_EQ(view.samples(s)[1].value, -2);
  EXPECT_EQ(view.samples(s)[1].timestamp_ms, -5);
  // The label fields as sent, split after __name__.
  EXPECT_TRUE(s.contiguous);
  EXPECT_EQ(s.name_field, req.substr(2, s.name_field.size()));  // after key + length
  EXPECT_EQ(s.name_field.size(), 2 + Label("__name__", "up").size());
  EXPECT_EQ(s.other_labels, req.substr(2 + s.name_field.size(), s.other_labels.size()));
  EXPECT_EQ(s.other_labels.size(), 2 + Label("job", "node").size());
}

TEST(RemoteWrite, SkipsMetadataExemplarsAndUnknownFields) {
  std::string ts;
  PutBytes(1, Label("__name__", "m"), &ts);
  PutBytes(3, "exemplar bytes", &ts);
  PutBytes(2, Sample(7, 1000), &ts);
  PutBytes(4, "histogram", &ts);
  PutKey(9, 0, &ts);  // an unknown varint
  PutVarint(300, &ts);
  PutKey(10, 5, &ts);  // an unknown fixed32
  ts.append("abcd");
  std::string req;
  PutBytes(3, "metadata", &req);
  PutBytes(1, ts, &req);
  PutKey(7, 1, &req);  // an unknown fixed64
  req.append("12345678");
  WriteRequestView view;
  ASSERT_TRUE(DecodeWriteRequest(req, &view).ok());
  ASSERT_EQ(view.series().size(), 1u);
  EXPECT_EQ(view.series()[0].num_samples, 1u);
  EXPECT_EQ(view.samples(view.series()[0])[0].value, 7);
}

TEST(RemoteWrite, LabelsAfterSamplesAreNotContiguous) {
  std::string ts;
  PutBytes(1, Label("__name__", "m"), &ts);
  PutBytes(2, Sample(1, 1), &ts);
  PutBytes(1, Label("a", "b"), &ts);
  std::string req;
  PutBytes(1, ts, &req);
  WriteRequestView view;
  ASSERT_TRUE(DecodeWriteRequest(req, &view).ok());
  EXPECT_FALSE(view.series()[0].contiguous);
  EXPECT_TRUE(view.series()[0].name_field.empty());
  EXPECT_TRUE(view.series()[0].other_labels.empty());
  std::vector<RemoteLabel> labels;
  ASSERT_TRUE(WriteRequestView::DecodeLabels(view.series()[0], &labels).ok());
  EXPECT_EQ(labels.size(), 2u);
}

TEST(RemoteWrite, NameNotFirstLeavesNameFieldEmpty) {
  std::string ts;
  PutBytes(1, Label("a", "b"), &ts);
  PutBytes(1, Label("__name__", "m"), &ts);
  std::string req;
  PutBytes(1, ts, &req);
  WriteRequestView view;
  ASSERT_TRUE(DecodeWriteRequest(req, &view).ok());
  EXPECT_TRUE(view.series()[0].name_field.empty());
  EXPECT_EQ(view.series()[0].other_labels, std::string_view(ts));
}

TEST(RemoteWrite, MalformedLabelsAreFoundByDecodeLabels) {
  std::string ts;
  PutBytes(1, std::string("\x0a\x05" "ab"), &ts);  // a label whose name runs past its message
  std::string req;
  PutBytes(1, ts, &req);
  WriteRequestView view;
  ASSERT_TRUE(DecodeWriteRequest(req, &view).ok());
  std::vector<RemoteLabel> labels;
  EXPECT_TRUE(WriteRequestView::DecodeLabels(view.series()[0], &labels).IsInvalidArgument());
}

TEST(RemoteWrite, EmptyRequestHasNoSeries) {
  WriteRequestView view;
  ASSERT_TRUE(DecodeWriteRequest("", &view).ok());
  EXPECT_TRUE(view.series().empty());
}

TEST(RemoteWrite, RejectsEveryTruncation) {
  const std::string req = OneSeries();
  WriteRequestView view;
  for (size_t n = 1; n < req.size(); ++n) {
    Status s = DecodeWriteRequest(std::string_view(req).substr(0, n), &view);
    EXPECT_TRUE(s.IsInvalidArgument()) << "prefix of " << n << " bytes: " << s.ToString();
  }
}

TEST(RemoteWrite, RejectsWrongWireTypesAndGroups) {
  WriteRequestView view;
  std::string req;
  PutKey(1, 0, &req);  // timeseries as a varint
  PutVarint(1, &req);
  EXPECT_NE(DecodeWriteRequest(req, &view).message().find("wrong wire type"), std::string::npos);
  req.clear();
  PutKey(5, 3, &req);  // a start-group
  EXPECT_NE(DecodeWriteRequest(req, &view).message().find("wire type 3"), std::string::npos);
  req.clear();
  PutKey(0, 0, &req);  // field number 0
  PutVarint(0, &req);
  EXPECT_TRUE(DecodeWriteRequest(req, &view).IsInvalidArgument());
  req.assign(11, '\xff');  // an overlong varint
  EXPECT_NE(DecodeWriteRequest(req, &view).message().find("varint"), std::string::npos);
  req.clear();  // a length past the end
  PutKey(1, 2, &req);
  PutVarint(uint64_t{1} << 40, &req);
  EXPECT_NE(DecodeWriteRequest(req, &view).message().find("runs past"), std::string::npos);
}

TEST(RemoteWrite, SnappyRoundTripAndLimit) {
  const std::string req = OneSeries();
  std::string compressed;
  snappy::Compress(req.data(), req.size(), &compressed);
  std::string out;
  ASSERT_TRUE(SnappyUncompress(compressed, req.size(), &out).ok());
  EXPECT_EQ(out, req);
  EXPECT_TRUE(SnappyUncompress(compressed, req.size() - 1, &out).IsResourceExhausted());
}

TEST(RemoteWrite, SnappyLimitIsCheckedBeforeAllocating) {
  // A header that claims 4 GiB - 1 and carries nothing.
  const std::string huge = "\xff\xff\xff\xff\x0f";
  std::string out;
  const Status s = SnappyUncompress(huge, 64 << 20, &out);
  EXPECT_TRUE(s.IsResourceExhausted()) << s.ToString();
  EXPECT_EQ(out.capacity() < 1024, true);
}

TEST(RemoteWrite, SnappyRejectsCorruptData) {
  std::string out;
  EXPECT_TRUE(SnappyUncompress("", 100, &out).IsInvalidArgument());
  EXPECT_TRUE(SnappyUncompress("\x80", 100, &out).IsInvalidArgument());
  // Claims 10 bytes, holds a 3-byte literal.
  EXPECT_TRUE(SnappyUncompress(std::string("\x0a\x08" "abc", 5), 100, &out).IsInvalidArgument());
  // A copy reaching before the start of the output.
  EXPECT_TRUE(SnappyUncompress(std::string("\x05\x01\x10", 3), 100, &out).IsInvalidArgument());
  // Valid JSON is not snappy.
  EXPECT_FALSE(SnappyUncompress("{\"a\":1}", 100, &out).ok());
}

TEST(RemoteWrite, StaleMarkerIsOneNaN) {
  uint64_t bits = 0x7ff0000000000002ull;
  double stale;
  std::memcpy(&stale, &bits, 8);
  EXPECT_TRUE(IsStaleMarker(stale));
  EXPECT_FALSE(IsStaleMarker(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_FALSE(IsStaleMarker(1.0));
}

}  // namespace
}  // namespace sundial::ingest
