// The parts of QueryLimits that QueryEngine::Run applies itself (the rest
// is QueryBudget's): the checks made before any point is read, the byte
// count of the streamed answer, and the budget of one run.
//
// Why apart from query_engine.cc: the planner and the pipeline only call
// these, and the rules (what is known up front, what a series holds) are
// easier to review in one place.
//
// Thread-safety: pure functions; a CountingSink belongs to one run.
#pragma once

#include <cstdint>
#include <string>

#include "series_source.h"
#include "sundial/common/status.h"
#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {

// Memory one series' pipeline holds while its group runs: the raw point
// buffer (RawSource::kBatch points), the storage iterator with its decoded
// page, the stages and the group aggregator's slot. An estimate on the
// high side, from sizeof and a page of 512 bytes.
inline constexpr uint64_t kSeriesStateBytes = 2048;

// Result points a sub-query of `groups` groups has for certain, known
// before reading: with a fill policy every group has a point for every
// bucket of [start, end]. 0 when the count depends on the data; saturates
// at UINT64_MAX.
uint64_t KnownOutputPoints(const QuerySpec& spec, const DownsampleSpec& ds, uint64_t groups);

// ResourceExhausted if `points` certain result points are over
// max_output_points, or (at 15 bytes each at least) over max_output_bytes.
Status CheckKnownOutput(const QueryLimits& limits, uint64_t points);

// InvalidArgument if a regexp pattern of q is longer than
// limits.max_regex_length (checked before any of them is matched).
Status CheckRegexLengths(const QueryLimits& limits, const SubQuery& q);

// The budget of one run: limits, with bound's soft bounds when not null.
BudgetLimits BudgetFor(const QueryLimits& limits, const SmallQueryBound* bound);

// Passes pieces on to sink and counts their bytes; the piece that takes
// the total over limit (0 = none) is refused and fails budget with
// ResourceExhausted, which ends the query. Borrows sink and budget.
class CountingSink final : public ChunkSink {
 public:
  CountingSink(ChunkSink* sink, uint64_t limit, QueryBudget* budget)
      : sink_(sink), limit_(limit), budget_(budget) {}
  bool Write(std::string&& chunk) override;

 private:
  ChunkSink* const sink_;
  const uint64_t limit_;
  QueryBudget* const budget_;
  uint64_t bytes_ = 0;
};

}  // namespace sundial::query
