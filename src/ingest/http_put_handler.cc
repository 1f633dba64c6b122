#include "sundial/ingest/http_put_handler.h"

#include <cmath>

#include "ingest/fast_number.h"

namespace sundial::ingest {

HttpPutHandler::HttpPutHandler(storage::Storage* storage, const IngestOptions* options,
                               const PointRules* rules, IngestStats* stats)
    : rules_(rules), stats_(stats),
      writer_(storage, options, rules, stats, Protocol::kHttpPut, TagPolicy::kAtLeastOne) {}

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
    writer_.Reject(PutErrorKind::kIllegalArgument);
    *error = invalid;
    return false;
  }
  ParsedValue value;
  if (!FastParseValue(p.value, &value) && !ParseValue(p.value, &value, &error_.message)) {
    writer_.Reject(PutErrorKind::kInvalidValue);
    return *error = "Unable to parse value to a number", false;
  }
  // Only a non-finite float or an oversized timestamp fails rows 9-10; the
  // tags are needed for the message only.
  if ((!value.value.is_int() && !std::isfinite(value.value.float_value())) ||
      p.timestamp > 9999999999999LL) {
    DistinctTags(p, parser_.tags(), &tags_);
    if (!rules_->CheckValueAndTimestamp(p.metric, p.timestamp, value, tags_.data(),
                                        tags_.size(), &error_)) {
      writer_.Reject(PutErrorKind::kIllegalArgument);
      return *error = error_.message, false;
    }
  }
  SeriesId id = writer_.Lookup(p.metric, p.tags_raw);
  if (id == kInvalidSeriesId) DistinctTags(p, parser_.tags(), &tags_);
  if (id == kInvalidSeriesId &&
      !writer_.Resolve(p.metric, tags_.data(), tags_.size(), p.metric, p.tags_raw, &id,
                       &error_)) {
    writer_.Reject(error_.kind);
    switch (error_.kind) {
      case PutErrorKind::kUnknownMetric:
        return *error = "Unknown metric", false;
      case PutErrorKind::kStorage:
        return *error = "Storage exception: " + error_.message, false;
      default:
        return *error = error_.message, false;
    }
  }
  writer_.Add(id, PutTimestampToMs(p.timestamp), value.value);
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
  std::string error;
  constexpr size_t kLookahead = 8;  // prefetch the series of a later point
  for (size_t i = 0; i < points.size(); ++i) {
    if (i + kLookahead < points.size()) {
      const JsonPutPoint& ahead = points[i + kLookahead];
      if (ahead.has_metric && ahead.has_tags) writer_.Prefetch(ahead.metric, ahead.tags_raw);
    }
    const JsonPutPoint& p = points[i];
    if (!CheckPoint(p, &error)) AddFailure(p, error, want_details, out);
  }
  stats_->http_points.fetch_add(points.size(), std::memory_order_relaxed);
  size_t n = 0;
  out->storage_status = writer_.Flush(&n);
  if (out->storage_status.ok()) out->success = n;
}

}  // namespace sundial::ingest
