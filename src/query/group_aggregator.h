// GroupAggregator: merges the series of one group into one output series
// with OpenTSDB's interpolation and integer/double rules (port of
// AggregationIterator, opentsdb-compat.md §5.8).
//
// Output timestamps are the union of the member series' timestamps. At
// each one, a series takes part only between its first and last point;
// one without a point there is interpolated (LERP, zero, max, min, prev),
// and for rates its previous rate is used. The value is an integer only
// when no rate is involved and no current or next value of any member is
// a double.
//
// Thread-safety: one query thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "series_source.h"
#include "sundial/query/aggregator.h"

namespace sundial::query {

class GroupAggregator {
 public:
  // sources are in aggregation order (TSUID order). rate: the sources
  // produce rates (their first point is the hidden one against t=0).
  GroupAggregator(std::vector<std::unique_ptr<PointSource>> sources, const Aggregator& agg,
                  bool rate);

  // Produces the next output point; false at the end.
  bool Next(Point* out);

 private:
  void MoveToNext(size_t i);
  bool NextOfOne(Point* out);
  Value Compute(Timestamp x);

  std::vector<std::unique_ptr<PointSource>> sources_;
  const Aggregator& agg_;
  const bool rate_;
  size_t current_ = 0;
  // Per series: current point (valid while taking part) and next point.
  struct Member {
    Point cur, next;
    bool cur_valid = false, next_valid = false;
  };
  std::vector<Member> m_;
  std::vector<int64_t> longs_;
  std::vector<double> doubles_;
};

}  // namespace sundial::query
