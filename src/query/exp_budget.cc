// Request-wide limits of expression queries (exp_budget.h).
#include "exp_budget.h"

#include <algorithm>
#include <string>

#include "series_source.h"

namespace sundial::query {

// What is left of the request's limits after `used`; the deadline as the
// time left. A limit used up leaves 1, so that the next run fails at once.
QueryLimits ExpRemaining(const QueryLimits& l, const ExpUsed& used, ExpClock::time_point start) {
  QueryLimits r = l;
  const auto left = [](uint64_t limit, uint64_t used_up) -> uint64_t {
    return limit == 0 ? 0 : used_up >= limit ? 1 : limit - used_up;
  };
  r.max_series = left(l.max_series, used.series);
  r.max_points = left(l.max_points, used.raw_points);
  r.max_output_points = left(l.max_output_points, used.points);
  r.max_memory = left(l.max_memory, used.bytes);
  if (l.deadline_ms > 0) {
    const int64_t spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(ExpClock::now() - start).count();
    r.deadline_ms = std::max<int64_t>(1, l.deadline_ms - spent);
  }
  return r;
}

// The request's figures so far against the configured limits. Each run
// gets what is left (Remaining), so it stops early, but names that figure
// in its error; this check names the configured one. A limit used up
// exactly leaves 1 for the next run, which this check then catches.
Status ExpCheckUsed(const ExpUsed& used, const QueryLimits& l) {
  if (l.max_series != 0 && used.series > l.max_series) {
    return Status::ResourceExhausted(SeriesLimitMessage(l.max_series));
  }
  if (l.max_points != 0 && used.raw_points > l.max_points) {
    return Status::ResourceExhausted(PointsLimitMessage(l.max_points));
  }
  if (l.max_output_points != 0 && used.points > l.max_output_points) {
    return Status::ResourceExhausted(OutputPointsMessage(l.max_output_points));
  }
  if (l.max_memory != 0 && used.bytes > l.max_memory) {
    return Status::ResourceExhausted(MemoryLimitMessage(l.max_memory));
  }
  return Status::OK();
}

// A run's ResourceExhausted error, restated with the configured limit
// (the run's message names what was left of it).
Status ExpRestate(const Status& s, const QueryLimits& l) {
  if (s.code() != Status::Code::kResourceExhausted) return s;
  const auto has = [&s](const char* k) { return s.message().find(k) != std::string::npos; };
  if (has("(query.max_output_bytes)")) return s;  // not shared between runs
  if (has("(query.max_series)")) return Status::ResourceExhausted(SeriesLimitMessage(l.max_series));
  if (has("(query.max_output_points)")) {
    return Status::ResourceExhausted(OutputPointsMessage(l.max_output_points));
  }
  if (has("(query.max_memory)")) return Status::ResourceExhausted(MemoryLimitMessage(l.max_memory));
  return Status::ResourceExhausted(PointsLimitMessage(l.max_points));
}

Status ExpDeadlineStatus(const QueryLimits& l) {
  return Status::DeadlineExceeded("Query timed out: it ran longer than the limit of " +
                                  std::to_string(l.deadline_ms) + " ms (query.deadline)");
}

}  // namespace sundial::query
