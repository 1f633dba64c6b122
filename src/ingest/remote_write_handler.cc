#include "sundial/ingest/remote_write_handler.h"

#include <cmath>

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

RemoteWriteHandler::RemoteWriteHandler(storage::Storage* storage, const IngestOptions* options,
                                       const PointRules* rules, IngestStats* stats)
    : stats_(stats),
      writer_(storage, options, rules, stats, Protocol::kRemoteWrite, TagPolicy::kAny,
              NamePolicy::kPlainText) {}

Status RemoteWriteHandler::SeriesOf(const RemoteSeries& s, SeriesId* id,
                                    RemoteWriteOutcome* out) {
  // The cache key: the label bytes as sent, split after __name__ so that
  // series sharing their other labels share a tagset in the cache; or, when
  // the client interleaved labels with samples, a copy that starts with a
  // byte no encoded label starts with.
  std::string_view metric_key = s.name_field;
  std::string_view tag_key = s.other_labels;
  bool decoded = false;
  if (!s.contiguous) {
    SUNDIAL_RETURN_IF_ERROR(WriteRequestView::DecodeLabels(s, &labels_));
    decoded = true;
    key_.assign(1, '\0');
    for (const RemoteLabel& l : labels_) {
      AppendKeyPart(l.name, &key_);
      AppendKeyPart(l.value, &key_);
    }
    tag_key = key_;
  }
  *id = writer_.Lookup(metric_key, tag_key);
  if (*id != kInvalidSeriesId) return Status::OK();
  // A miss: these bytes were never accepted before, so check everything.
  if (!decoded) SUNDIAL_RETURN_IF_ERROR(WriteRequestView::DecodeLabels(s, &labels_));
  std::string_view metric;
  bool has_name = false;
  tags_.clear();
  for (size_t i = 0; i < labels_.size(); ++i) {
    const RemoteLabel& l = labels_[i];
    for (size_t j = 0; j < i; ++j) {
      if (labels_[j].name == l.name) return Status::InvalidArgument("repeated label name", l.name);
    }
    if (l.name == kNameLabel) {
      metric = l.value;
      has_name = true;
    } else if (!l.value.empty()) {  // an empty value means an absent label
      tags_.push_back({l.name, l.value});
    }
  }
  if (!has_name) return Status::InvalidArgument("series without a __name__ label");
  ++out->series_misses;
  if (writer_.Resolve(metric, tags_.data(), tags_.size(), metric_key, tag_key, id, &error_)) {
    return Status::OK();
  }
  *id = kInvalidSeriesId;
  switch (error_.kind) {
    case PutErrorKind::kUnknownMetric:  // skip the series' samples
      return Status::OK();
    case PutErrorKind::kStorage:
      out->storage_status = Status::IOError("resolving a series", error_.message);
      return Status::OK();
    default:
      return Status::InvalidArgument(error_.message);
  }
}

void RemoteWriteHandler::Handle(std::string_view compressed, uint64_t max_size,
                                RemoteWriteOutcome* out) {
  *out = RemoteWriteOutcome();
  stats_->remote_write_requests.fetch_add(1, std::memory_order_relaxed);
  out->request_status = SnappyUncompress(compressed, max_size, &body_);
  if (out->request_status.ok()) out->request_status = DecodeWriteRequest(body_, &request_);
  if (!out->request_status.ok()) {
    stats_->remote_write_bad.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  out->samples = request_.total_samples();
  // Resolve every series first. A series that breaks the rules is skipped
  // (its samples are counted as rejected) and named in request_status; the
  // others are stored, as Mimir and InfluxDB answer a partial write.
  const auto& series = request_.series();
  ids_.resize(series.size());
  bad_.assign(series.size(), false);
  size_t bad_series = 0;
  for (size_t i = 0; i < series.size(); ++i) {
    const Status st = SeriesOf(series[i], &ids_[i], out);
    if (!out->storage_status.ok()) {
      writer_.RejectOther(out->samples);
      (void)writer_.Flush();  // publishes the counters; nothing is pending
      return;
    }
    if (!st.ok()) {
      if (bad_series++ == 0) {
        out->request_status =
            Status::InvalidArgument("series " + std::to_string(i) + ": " + st.message());
      }
      ids_[i] = kInvalidSeriesId;
      bad_[i] = true;
    }
  }
  if (bad_series > 0) {
    stats_->remote_write_bad.fetch_add(1, std::memory_order_relaxed);
    if (bad_series > 1) {
      out->request_status = Status::InvalidArgument(
          out->request_status.message() + " (and " + std::to_string(bad_series - 1) +
          " more bad series)");
    }
  }
  for (size_t i = 0; i < series.size(); ++i) {
    const RemoteSeries& s = series[i];
    if (ids_[i] == kInvalidSeriesId) {
      const PutErrorKind why = bad_[i] ? PutErrorKind::kIllegalArgument
                                       : PutErrorKind::kUnknownMetric;
      for (size_t j = 0; j < s.num_samples; ++j) writer_.Reject(why);
      out->rejected += s.num_samples;
      continue;
    }
    const RemoteSample* samples = request_.samples(s);
    for (size_t j = 0; j < s.num_samples; ++j) {
      const RemoteSample& sample = samples[j];
      if (IsStaleMarker(sample.value)) {
        ++out->stale;
      } else if (!std::isfinite(sample.value) || sample.timestamp_ms < 0 ||
                 sample.timestamp_ms > kMaxTimestampMs) {
        ++out->rejected;
        writer_.Reject(PutErrorKind::kIllegalArgument);
      } else {
        writer_.Add(ids_[i], sample.timestamp_ms, Value::Float(sample.value));
      }
    }
  }
  if (out->stale > 0) stats_->remote_write_stale.fetch_add(out->stale, std::memory_order_relaxed);
  size_t pending = 0;
  out->storage_status = writer_.Flush(&pending);
  if (out->storage_status.ok()) out->stored = pending;
}

}  // namespace sundial::ingest
