// ExpWriter: the JSON body of an /api/query/exp response (QueryExecutor's
// serialize, SerializeExpressionIterator, SerializeSubIterator and
// MetaSerializer), built in one string.
//
// Thread-safety: one query thread.
#pragma once

#include <cstdint>
#include <string>

#include "sundial/common/status.h"
#include "sundial/query/exp_eval.h"
#include "sundial/query/exp_request.h"

namespace sundial::query {

class ExpWriter {
 public:
  // Writes into *out (cleared); max_bytes (0 = none) bounds its size.
  ExpWriter(const ExpRequest& req, uint64_t max_bytes, std::string* out);

  // An expression's output: rows within [start, end] only.
  Status WriteExpression(const ExpOutput& o, const ExpSet& set);
  // A metric's output: every row, with the metric's fill value where a
  // group has no point.
  Status WriteMetric(const ExpOutput& o, const ExpSet& set);
  // Closes "outputs" and adds the "query" echo.
  Status Finish();
  // Values written to "dps" rows so far (one per series per row).
  uint64_t points() const { return points_; }

 private:
  // One element of "outputs"; trim keeps rows within [start, end].
  Status WriteOutput(const ExpOutput& o, const ExpSet& set, bool trim);
  // Writes "dps" and "dpsMeta" of set.
  Status WriteRows(const ExpSet& set, bool trim);
  void WriteMeta(const ExpSet& set);
  Status CheckSize() const;

  const ExpRequest& req_;
  const uint64_t max_bytes_;
  std::string* const out_;
  bool first_ = true;
  uint64_t points_ = 0;
};

}  // namespace sundial::query
