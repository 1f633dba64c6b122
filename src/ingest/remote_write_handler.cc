#include "sundial/ingest/remote_write_handler.h"

#include <cmath>

#include "ingest/text_util.h"

namespace sundial::ingest {

namespace {

constexpr std::string_view kNameLabel = "__name__";
constexpr int64_t kMaxTimestampMs = 9999999999999;

// Appends a length-prefixed piece to a cache key.
void AppendKeyPart(std::string_view part, std::string* key) {
  const uint32_t n = static_cast<uint32_t>(part.size());
  key->append(reinterpret_cast<const char*>(&n), sizeof(n));
  key->append(part);
}

}  // namespace

RemoteWriteHandler::RemoteWriteHandler(storage::Storage* storage, const IngestOptions* options)
    : writer_(storage, options) {}

Status RemoteWriteHandler::SeriesOf(const RemoteSeries& s, SeriesId* id,
                                    RemoteWriteOutcome* out) {
  const RemoteLabel* labels = request_.labels(s);
  std::string_view metric;
  bool has_name = false;
  for (size_t i = 0; i < s.num_labels; ++i) {
    if (labels[i].name == kNameLabel) {
      metric = labels[i].value;
      has_name = true;
    }
  }
  // The cache key: the label bytes as sent, or (when the client
  // interleaved labels with samples) a copy that starts with a byte no
  // encoded label starts with.
  std::string_view key = s.labels_raw;
  if (key.empty()) {
    key_.assign(1, '\0');
    for (size_t i = 0; i < s.num_labels; ++i) {
      AppendKeyPart(labels[i].name, &key_);
      AppendKeyPart(labels[i].value, &key_);
    }
    key = key_;
  }
  *id = writer_.Lookup(metric, key);
  if (*id != kInvalidSeriesId) return Status::OK();
  // A miss: these bytes were never accepted before, so check everything.
  if (!has_name) return Status::InvalidArgument("series without a __name__ label");
  SUNDIAL_RETURN_IF_ERROR(CheckPrintableName("metric name (__name__)", metric));
  tags_.clear();
  for (size_t i = 0; i < s.num_labels; ++i) {
    const RemoteLabel& l = labels[i];
    SUNDIAL_RETURN_IF_ERROR(CheckPrintableName("label name", l.name));
    for (size_t j = 0; j < i; ++j) {
      if (labels[j].name == l.name) {
        return Status::InvalidArgument("repeated label name", l.name);
      }
    }
    if (l.name == kNameLabel || l.value.empty()) continue;
    SUNDIAL_RETURN_IF_ERROR(CheckPrintableName("label value", l.value));
    tags_.push_back({l.name, l.value});
  }
  ++out->series_misses;
  const Status st = writer_.Resolve(metric, tags_.data(), tags_.size(), metric, key, id);
  if (st.IsNotFound()) {  // unknown metric: skip its samples
    *id = kInvalidSeriesId;
    return Status::OK();
  }
  if (st.IsInvalidArgument()) return st;
  if (!st.ok()) out->storage_status = st;
  return Status::OK();
}

void RemoteWriteHandler::Handle(std::string_view compressed, uint64_t max_size,
                                RemoteWriteOutcome* out) {
  *out = RemoteWriteOutcome();
  out->request_status = SnappyUncompress(compressed, max_size, &body_);
  if (!out->request_status.ok()) return;
  out->request_status = DecodeWriteRequest(body_, &request_);
  if (!out->request_status.ok()) return;
  out->samples = request_.total_samples();
  // Resolve every series first: a bad one refuses the body before any
  // sample of it is stored.
  const auto& series = request_.series();
  ids_.resize(series.size());
  for (size_t i = 0; i < series.size(); ++i) {
    Status st = SeriesOf(series[i], &ids_[i], out);
    if (!st.ok()) {
      out->request_status =
          Status::InvalidArgument("series " + std::to_string(i) + ": " + st.ToString());
      return;
    }
    if (!out->storage_status.ok()) return;
  }
  for (size_t i = 0; i < series.size(); ++i) {
    const RemoteSeries& s = series[i];
    const RemoteSample* samples = request_.samples(s);
    if (ids_[i] == kInvalidSeriesId) {
      out->rejected += s.num_samples;
      continue;
    }
    for (size_t j = 0; j < s.num_samples; ++j) {
      const RemoteSample& sample = samples[j];
      if (!std::isfinite(sample.value)) {
        ++(IsStaleMarker(sample.value) ? out->stale : out->rejected);
        continue;
      }
      if (sample.timestamp_ms < 0 || sample.timestamp_ms > kMaxTimestampMs) {
        ++out->rejected;
        continue;
      }
      writer_.Add(ids_[i], sample.timestamp_ms, sample.value);
    }
  }
  const size_t pending = writer_.pending();
  out->storage_status = writer_.Flush();
  if (out->storage_status.ok()) out->stored = pending;
}

}  // namespace sundial::ingest
