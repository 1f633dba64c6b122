// ResultCollector: receives the results of QueryEngine::Collect() as data
// rather than as JSON, for callers that compute on them (/api/query/exp).
//
// Thread-safety: called from the one thread running Collect().
#pragma once

#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/types.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {

class ResultCollector {
 public:
  virtual ~ResultCollector() = default;

  // A result begins: one group of sub-query q, in /api/query's order. The
  // strings are borrowed for the duration of the call only. tags are
  // sorted by key, aggregate_tags sorted.
  virtual void BeginResult(
      const SubQuery& q, std::string_view metric,
      const std::vector<std::pair<std::string_view, std::string_view>>& tags,
      const std::vector<std::string_view>& aggregate_tags) = 0;

  // The next point of the current result, within [start, end] of the
  // query and in increasing time order. A fill policy's empty bucket comes
  // as a NaN double (for "null" as well).
  virtual void AddPoint(Timestamp t, const Value& v) = 0;
};

}  // namespace sundial::query
