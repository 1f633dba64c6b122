#include "sundial/ingest/http_put_handler.h"

#include <cmath>

#include "ingest/fast_number.h"

namespace sundial::ingest {

HttpPutHandler::HttpPutHandler(storage::Storage* storage, const IngestOptions* options,
                               const PointRules* rules, IngestStats* stats)
    : storage_(storage), rules_(rules), stats_(stats), resolver_(storage, options, rules) {}

bool HttpPutHandler::CheckPoint(const JsonPutPoint& p, std::string* error) {
  // IncomingDataPoint.validate(), in order.
  const char* invalid = nullptr;
  if (p.is_null) {
    invalid = "Unexpected null datapoint encountered in set.";
  } else if (!p.has_metric || p.metric.empty()) {
    invalid = "Metric name was empty";
  } else if (p.timestamp <= 0) {
    invalid = "Invalid timestamp";
  } else if (!p.has_value || p.value.empty()) {
    invalid = "Empty value";
  } else if (!p.has_tags || p.tags_count == 0) {
    invalid = "Missing tags";
  }
  if (invalid != nullptr) {
    ++illegal_arguments_;
    *error = invalid;
    return false;
  }
  ParsedValue value;
  if (!FastParseValue(p.value, &value) && !ParseValue(p.value, &value, &error_.message)) {
    ++invalid_values_;
    return *error = "Unable to parse value to a number", false;
  }
  // Only a non-finite float or an oversized timestamp fails rows 9-10; the
  // tags are needed for the message only.
  if ((!value.value.is_int() && !std::isfinite(value.value.float_value())) ||
      p.timestamp > 9999999999999LL) {
    DistinctTags(p, parser_.tags(), &tags_);
    if (!rules_->CheckValueAndTimestamp(p.metric, p.timestamp, value, tags_.data(),
                                        tags_.size(), &error_)) {
      ++illegal_arguments_;
      return *error = error_.message, false;
    }
  }
  SeriesId id = resolver_.Lookup(p.metric, p.tags_raw);
  if (id == kInvalidSeriesId) DistinctTags(p, parser_.tags(), &tags_);
  if (id == kInvalidSeriesId &&
      !resolver_.Resolve(p.metric, tags_.data(), tags_.size(), p.metric, p.tags_raw, &id,
                         &error_)) {
    switch (error_.kind) {
      case PutErrorKind::kUnknownMetric:
        ++unknown_metrics_;
        return *error = "Unknown metric", false;
      case PutErrorKind::kStorage:
        stats_->storage_errors.fetch_add(1, std::memory_order_relaxed);
        return *error = "Storage exception: " + error_.message, false;
      default:
        ++illegal_arguments_;
        return *error = error_.message, false;
    }
  }
  AddPoint(&batch_, id, PutTimestampToMs(p.timestamp), value.value);
  return true;
}

void HttpPutHandler::AddFailure(const JsonPutPoint& p, std::string_view error, bool want_details,
                                HttpPutOutcome* out) {
  ++out->failed;
  if (!want_details) return;
  if (!out->errors_json.empty()) out->errors_json.push_back(',');
  out->errors_json.append("{\"error\":");
  AppendJsonString(error, &out->errors_json);
  out->errors_json.append(",\"datapoint\":");
  AppendJsonPutPoint(p, parser_.tags(), &out->errors_json);
  out->errors_json.push_back('}');
}

void HttpPutHandler::Handle(std::string_view body, bool want_details, HttpPutOutcome* out) {
  *out = HttpPutOutcome();
  stats_->http_put_requests.fetch_add(1, std::memory_order_relaxed);
  if (!parser_.Parse(body, &out->message, &out->details)) {
    out->request_error = true;
    stats_->illegal_arguments.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  const auto& points = parser_.points();
  if (points.empty()) {
    out->request_error = true;
    out->message = "No datapoints found in content";
    stats_->illegal_arguments.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  out->points = points.size();
  batch_.clear();
  batch_.reserve(points.size());
  std::string error;
  constexpr size_t kLookahead = 8;  // prefetch the series of a later point
  for (size_t i = 0; i < points.size(); ++i) {
    if (i + kLookahead < points.size()) {
      const JsonPutPoint& ahead = points[i + kLookahead];
      if (ahead.has_metric && ahead.has_tags) resolver_.Prefetch(ahead.metric, ahead.tags_raw);
    }
    const JsonPutPoint& p = points[i];
    if (!CheckPoint(p, &error)) AddFailure(p, error, want_details, out);
  }
  constexpr auto kRelaxed = std::memory_order_relaxed;
  stats_->http_points.fetch_add(points.size(), kRelaxed);
  if (!batch_.empty()) {
    out->storage_status = storage_->Append(batch_.data(), batch_.size());
    if (out->storage_status.ok()) {
      out->success = batch_.size();
      stats_->points_stored.fetch_add(batch_.size(), kRelaxed);
    } else {
      stats_->storage_errors.fetch_add(batch_.size(), kRelaxed);
    }
  }
  if (invalid_values_) stats_->invalid_values.fetch_add(invalid_values_, kRelaxed);
  if (illegal_arguments_) stats_->illegal_arguments.fetch_add(illegal_arguments_, kRelaxed);
  if (unknown_metrics_) stats_->unknown_metrics.fetch_add(unknown_metrics_, kRelaxed);
  invalid_values_ = illegal_arguments_ = unknown_metrics_ = 0;
  if (resolver_.misses() != misses_published_) {
    stats_->series_cache_misses.fetch_add(resolver_.misses() - misses_published_, kRelaxed);
    misses_published_ = resolver_.misses();
  }
}

}  // namespace sundial::ingest
