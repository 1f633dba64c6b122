#include "query_limits.h"

#include <utility>

#include "sundial/query/tag_filter.h"

namespace sundial::query {
namespace {

// Bytes of JSON per result point at least ("1234567890":0,).
constexpr uint64_t kMinBytesPerPoint = 15;

}  // namespace

uint64_t KnownOutputPoints(const QuerySpec& spec, const DownsampleSpec& ds, uint64_t groups) {
  if (!ds.enabled || ds.all || ds.fill == FillPolicy::kNone || ds.interval_ms <= 0) return 0;
  if (groups == 0 || spec.end_ms < spec.start_ms) return 0;
  const uint64_t range = static_cast<uint64_t>(spec.end_ms) - static_cast<uint64_t>(spec.start_ms);
  const uint64_t steps = range / static_cast<uint64_t>(ds.interval_ms);
  if (steps == UINT64_MAX) return UINT64_MAX;
  const uint64_t buckets = steps + 1;
  if (buckets > UINT64_MAX / groups) return UINT64_MAX;
  return buckets * groups;
}

Status CheckKnownOutput(const QueryLimits& limits, uint64_t points) {
  if (limits.max_output_points != 0 && points > limits.max_output_points) {
    return Status::ResourceExhausted(OutputPointsMessage(limits.max_output_points));
  }
  if (limits.max_output_bytes != 0 && points != 0 &&
      points > limits.max_output_bytes / kMinBytesPerPoint) {
    return Status::ResourceExhausted(OutputBytesMessage(limits.max_output_bytes));
  }
  return Status::OK();
}

Status CheckRegexLengths(const QueryLimits& limits, const SubQuery& q) {
  if (limits.max_regex_length == 0) return Status::OK();
  for (const TagFilter& f : q.filters) {
    if (f.type() == FilterType::kRegexp && f.filter().size() > limits.max_regex_length) {
      return Status::InvalidArgument(
          "Regular expression is too long: " + std::to_string(f.filter().size()) +
          " bytes, the limit is " + std::to_string(limits.max_regex_length) +
          " (query.max_regex_length)");
    }
  }
  return Status::OK();
}

BudgetLimits BudgetFor(const QueryLimits& limits, const SmallQueryBound* bound) {
  BudgetLimits b;
  b.max_points = limits.max_points;
  b.max_output_points = limits.max_output_points;
  b.max_memory = limits.max_memory;
  b.deadline_ms = limits.deadline_ms;
  // Under a small-query bound, the stricter of the two point limits
  // applies; only the client's limit is an error.
  if (bound != nullptr) {
    if (b.max_points == 0 || bound->max_points < b.max_points) {
      b.max_points = bound->max_points;
      b.points_limit_is_soft = true;
    }
    b.soft_output_points = bound->max_points;
    b.soft_deadline_us = bound->max_us;
  }
  return b;
}

bool CountingSink::Write(std::string&& chunk) {
  bytes_ += chunk.size();
  if (limit_ != 0 && bytes_ > limit_) {
    budget_->Fail(Status::ResourceExhausted(OutputBytesMessage(limit_)));
    return false;
  }
  return sink_->Write(std::move(chunk));
}

}  // namespace sundial::query
