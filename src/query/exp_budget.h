// The limits of one expression request (/api/query/exp, /api/query/gexp)
// shared by all its runs: each metric query and each evaluation gets what
// the earlier ones left (ExpRemaining), and the totals are checked against
// the configured limits (ExpCheckUsed), so the whole request stays within
// query.max_series, max_points, max_output_points, max_memory and deadline.
//
// Thread-safety: pure functions over plain data.
#pragma once

#include <chrono>
#include <cstdint>

#include "sundial/common/status.h"
#include "sundial/query/query_engine.h"

namespace sundial::query {

using ExpClock = std::chrono::steady_clock;

// What one request has used of its limits so far.
struct ExpUsed {
  uint64_t series = 0;      // selected by the metric queries
  uint64_t raw_points = 0;  // read by the metric queries
  uint64_t points = 0;      // collected and computed
  uint64_t bytes = 0;       // held by the results
};

// What is left of the request's limits after `used`; the deadline as the
// time left. A limit used up leaves 1, so that the next run fails at once.
QueryLimits ExpRemaining(const QueryLimits& l, const ExpUsed& used, ExpClock::time_point start);

// The request's figures so far against the configured limits. Each run
// gets what is left (ExpRemaining), so it stops early, but names that
// figure in its error; this check names the configured one.
Status ExpCheckUsed(const ExpUsed& used, const QueryLimits& l);

// A run's ResourceExhausted error, restated with the configured limit (the
// run's message names what was left of it); other errors unchanged.
Status ExpRestate(const Status& s, const QueryLimits& l);

// The DeadlineExceeded error naming the configured query.deadline.
Status ExpDeadlineStatus(const QueryLimits& l);

}  // namespace sundial::query
