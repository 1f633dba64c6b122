// Planner hook: downsampling answered from hourly rollups (rollup/).
//
// Why: a 1 h (or 1 d) bucket over a closed hour needs one rollup record,
// not every raw point. RollupSource produces exactly the points that
// DownsampleSource over the raw points would (same buckets, same doubles):
// hours the store has rolled up come from their records; hours it has not
// (the current hour, dirty or damaged ones) are read raw and summarised the
// same way; a bucket whose value would not be bit-identical when combined
// from hours (a sum or avg over several hours of non-integral values) is
// recomputed from its raw points. Fill and rate then run unchanged.
//
// Thread-safety: one query thread owns a source.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "series_source.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/storage.h"

namespace sundial::query {

// True when q's downsampling can be served from rollups over the scan
// window of ctx: a function rollups answer (sum, zimsum, pfsum, count, min,
// mimmin, max, mimmax, avg, first, last), not "all", and every bucket
// boundary within the window on a UTC hour (fixed intervals of whole hours;
// calendar buckets in zones whose offsets are whole hours).
bool RollupEligible(const SubQuery& q, const DownsampleContext& ctx);

class RollupSource final : public PointSource {
 public:
  // All pointers are borrowed. partitions: storage->PartitionRanges(),
  // read once per query; an hour outside all of them holds no point and is
  // skipped without looking for its rollup or raw points (empty: unknown,
  // every hour is looked at). REQUIRES: RollupEligible(q, ctx).
  RollupSource(storage::Storage* storage, const rollup::RollupStore* rollups, SeriesId id,
               const DownsampleContext& ctx, QueryBudget* budget,
               const std::vector<std::pair<Timestamp, Timestamp>>* partitions);
  // Computes the first bucket. False if the series has no point in the
  // scan window (it then takes no part in the query, as with raw reads).
  bool Prime();
  bool Next(Point* p) override;

 private:
  bool Compute(Point* p);
  // The next hour with points, rolled up or summarised from raw points.
  bool NextHour(rollup::HourStats* out);
  bool RawHour(Timestamp hour, rollup::HourStats* out);
  double RawBucket(Timestamp lo, Timestamp hi);
  Timestamp Step(Timestamp t) const;
  // False when no partition overlaps [hour, hour + 1 h). Hours ascending.
  bool MayHavePoints(Timestamp hour);

  storage::Storage* const storage_;
  const SeriesId id_;
  const DownsampleContext ctx_;
  QueryBudget* const budget_;
  std::unique_ptr<rollup::HourCursor> cursor_;
  rollup::BucketCombiner combiner_;
  Timestamp hour_;  // next hour to look at
  const std::vector<std::pair<Timestamp, Timestamp>>* const partitions_;
  size_t partition_ = 0;  // first partition that may overlap hour_ or later
  bool have_pending_ = false;
  rollup::HourStats pending_;  // first hour of the next bucket
  bool calendar_started_ = false;
  Timestamp prev_ = 0, end_ = 0;  // calendar bucket [prev_, end_)
  std::unique_ptr<RawSource> raw_;  // raw points from the first raw hour on
  bool raw_has_ = false;
  bool have_primed_ = false;
  Point primed_;
  std::vector<double> values_;
};

}  // namespace sundial::query
