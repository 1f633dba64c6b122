// Prometheus remote_write 1.0 bodies: snappy block decompression and a
// zero-copy decoder of prometheus.WriteRequest.
//
// Wire format (remote_write 1.0, protobuf, proto3 field numbers):
//
//   WriteRequest { repeated TimeSeries timeseries = 1;
//                  repeated MetricMetadata metadata = 3; }      // skipped
//   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2;
//                  repeated Exemplar exemplars = 3;             // skipped
//                  repeated Histogram histograms = 4; }         // skipped
//   Label        { string name = 1; string value = 2; }
//   Sample       { double value = 1; int64 timestamp = 2; }     // ms
//
// The HTTP body is that message compressed with snappy's block format (not
// the framed format): a varint of the uncompressed length, then the
// compressed elements.
//
// Why hand-written protobuf decoding: the schema is four tiny messages, and
// libprotobuf would add a large dependency, code generation, and a copy of
// every label string into std::string objects. This decoder reads the wire
// format directly with bounds checks at every step and returns views into
// the decompressed buffer. Fields it does not know (metadata, exemplars,
// histograms, anything newer) are skipped by wire type, as protobuf
// requires. Why libsnappy (Debian libsnappy-dev) for the snappy step: it is
// the reference implementation, fuzzed upstream, faster than a simple
// decoder, and ships a static libsnappy.a for the static cross builds; its
// header-only length query lets the size limit be checked before any
// allocation.
//
// Thread-safety: the functions are pure; a WriteRequestView is not
// thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::ingest {

struct RemoteLabel {
  std::string_view name;
  std::string_view value;
};

struct RemoteSample {
  double value = 0;
  int64_t timestamp_ms = 0;
};

// One TimeSeries. Its labels are not decoded up front (see
// WriteRequestView::DecodeLabels): a receiver looks its series up by their
// raw bytes and decodes them only for a series it has not seen.
struct RemoteSeries {
  std::string_view message;  // the TimeSeries message
  size_t offset = 0;         // of message in the WriteRequest, for errors
  // The encoded label fields, when they are contiguous in the message (as
  // every known client writes them); otherwise both are empty. name_field
  // is the first label field when it is the __name__ label (Prometheus
  // sorts labels, so it is), and other_labels the label fields after it;
  // otherwise name_field is empty and other_labels holds them all.
  // Identical bytes mean an identical label set, so they are a cache key.
  std::string_view name_field;
  std::string_view other_labels;
  bool contiguous = true;
  size_t first_sample = 0;
  size_t num_samples = 0;
};

// A decoded WriteRequest. Views point into the buffer that was decoded,
// which must outlive their use. Reusable: Decode clears it first.
class WriteRequestView {
 public:
  const std::vector<RemoteSeries>& series() const { return series_; }
  const RemoteSample* samples(const RemoteSeries& s) const { return &samples_[s.first_sample]; }
  size_t total_samples() const { return samples_.size(); }

  // Decodes the labels of s into *out (cleared first), in message order.
  // InvalidArgument on a malformed label.
  static Status DecodeLabels(const RemoteSeries& s, std::vector<RemoteLabel>* out);

 private:
  friend Status DecodeWriteRequest(std::string_view message, WriteRequestView* out);
  std::vector<RemoteSeries> series_;
  std::vector<RemoteSample> samples_;
};

// Decodes a WriteRequest message (already decompressed): the framing of
// every field and every sample; labels are only delimited (see
// DecodeLabels). On malformed wire data returns InvalidArgument naming the
// problem and its byte offset ("truncated varint at byte 12"); *out is then
// unspecified. Label names and values are not validated here (see
// remote_write_handler.h).
Status DecodeWriteRequest(std::string_view message, WriteRequestView* out);

// Decompresses a snappy block into *out. The uncompressed length is read
// from the header first: ResourceExhausted if it exceeds max_size (nothing
// is allocated then), InvalidArgument if the data is not valid snappy.
Status SnappyUncompress(std::string_view compressed, uint64_t max_size, std::string* out);

// The stale marker: Prometheus writes this NaN (bit pattern
// 0x7ff0000000000002) when a series disappears.
bool IsStaleMarker(double v);

}  // namespace sundial::ingest
