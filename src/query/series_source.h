// Per-series stages of the query pipeline (opentsdb-compat.md §5.5-§5.7):
// raw points from storage -> [downsample, with fill] -> [rate].
//
// Why stages as small pull iterators: each decodes lazily from the
// storage iterator, so memory per series is a few points plus one bucket's
// values, whatever the time range. The stages port OpenTSDB's Downsampler,
// FillingDownsampler and RateSpan one to one, including their edge rules.
//
// Thread-safety: one query thread owns a pipeline.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sundial/common/sample_iterator.h"
#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {

struct Point {
  Timestamp t = 0;
  Value v;
};

// What a QueryBudget enforces. 0 means no limit for every field.
struct BudgetLimits {
  uint64_t max_points = 0;         // raw points read
  uint64_t max_output_points = 0;  // points written to the result
  uint64_t max_memory = 0;         // bytes held by pipelines (Reserve)
  int64_t deadline_ms = 0;         // wall time from construction
  // Soft bounds of the small-query path (QueryEngine::ExecuteSmall): over
  // them the status is Busy, not an error the client sees.
  bool points_limit_is_soft = false;  // max_points is a soft bound
  uint64_t soft_output_points = 0;    // 0 = none
  int64_t soft_deadline_us = 0;       // 0 = none
};

// Shared per-query accounting of raw points read, points written, memory
// held and wall time. Every counter is cheap; the clock is read once per
// kCheckEvery units of work, so long loops call Tick() freely.
class QueryBudget {
 public:
  static constexpr uint64_t kCheckEvery = 4096;

  explicit QueryBudget(const BudgetLimits& limits);
  // Over max_points the status is ResourceExhausted, or Busy when
  // points_limit_is_soft (a bound of the small-query path, not a limit the
  // client hit).
  QueryBudget(uint64_t max_points, int64_t deadline_ms, bool points_limit_is_soft = false);
  // Counts one raw point; false once a limit is hit (status() says which).
  bool Charge() { return Charge(1); }
  // Counts n raw points at once; the same outcome as n calls of Charge().
  bool Charge(uint64_t n) {
    points_ += n;
    if (points_ <= next_check_) return true;
    return Check();
  }
  // Counts n points written to the result; false once a limit is hit.
  bool Emit(uint64_t n = 1) {
    emitted_ += n;
    if (emitted_ <= next_emit_check_) return true;
    return Check();
  }
  // Counts cost units of work that reads no point (about 100 ns each:
  // filling empty buckets, matching filters); false once the deadline (or
  // another limit) was hit.
  bool Tick(uint64_t cost = 1) {
    ticks_ += cost;
    if (ticks_ < next_tick_check_) return status_.ok();
    next_tick_check_ = ticks_ + kCheckEvery;
    return Check();
  }
  // Holds bytes of memory for the query; false (ResourceExhausted) when
  // that would exceed max_memory. Release() gives them back.
  bool Reserve(uint64_t bytes);
  void Release(uint64_t bytes) { memory_ -= bytes < memory_ ? bytes : memory_; }
  const Status& status() const { return status_; }
  void Fail(Status s) {
    if (status_.ok()) status_ = std::move(s);
  }
  uint64_t points() const { return points_; }
  uint64_t emitted() const { return emitted_; }

  // The limits of a part of the query that runs on its own budget (on
  // another thread): what is left of this budget's raw points, output
  // points and time now, and its memory limit as it is (a part holds it
  // alone). A part is allowed one point more when none is left, so that
  // Absorb() fails as this budget would have.
  BudgetLimits PartLimits() const;
  // Adds a finished part's raw and output points to this budget if the
  // part did not fail and they fit in what is left of it. Returns whether
  // it did; if not, nothing changed, and running the part again on this
  // budget fails as running it in sequence would have.
  bool Absorb(const QueryBudget& part);

 private:
  bool Check();
  void SetNextChecks();

  const BudgetLimits limits_;
  const std::chrono::steady_clock::time_point start_;
  uint64_t points_ = 0;
  uint64_t next_check_ = 0;
  uint64_t emitted_ = 0;
  uint64_t next_emit_check_ = 0;
  uint64_t ticks_ = 0;
  uint64_t next_tick_check_ = kCheckEvery;
  uint64_t memory_ = 0;
  Status status_;
};

// The ResourceExhausted messages for query.max_output_points,
// query.max_output_bytes, query.max_series, query.max_points and
// query.max_memory.
std::string SeriesLimitMessage(uint64_t limit);
std::string PointsLimitMessage(uint64_t limit);
std::string MemoryLimitMessage(uint64_t limit);
std::string OutputPointsMessage(uint64_t limit);
std::string OutputBytesMessage(uint64_t limit);

class PointSource {
 public:
  virtual ~PointSource() = default;
  // Produces the next point in strictly increasing time order; false at
  // the end (or when the budget ran out).
  virtual bool Next(Point* p) = 0;
};

// Raw storage points, read from storage kBatch at a time. A point is
// charged to the budget when it is consumed (Next, Consume), not when it
// is buffered. The first point may be pre-read with Prime().
class RawSource final : public PointSource {
 public:
  // Small: a query may hold one RawSource per series (up to query.max_series).
  static constexpr size_t kBatch = 32;

  RawSource(std::unique_ptr<SampleIterator> it, QueryBudget* budget);
  ~RawSource() override { budget_->Release(held_); }
  // Buffers the first point. False if the series has none in the window.
  bool Prime() { return Peek(); }
  // Inline: stages holding a RawSource call it without a virtual hop.
  bool Next(Point* p) override {
    if (!Peek()) return false;
    if (!budget_->Charge()) return Stop();
    p->t = ts_[pos_];
    p->v = vs_[pos_];
    ++pos_;
    return true;
  }

  // Batch access for stages that fold arrays. Peek() makes sure a point is
  // buffered (false at the end); the unconsumed points are then
  // ts()[pos()..size()) and vs()[pos()..size()).
  bool Peek() { return pos_ < n_ || Fill(); }
  const Timestamp* ts() const { return ts_; }
  const Value* vs() const { return vs_; }
  size_t pos() const { return pos_; }
  size_t size() const { return n_; }
  // Consumes k buffered points and charges them. False (and the source
  // ends) once the budget ran out. REQUIRES: pos() + k <= size().
  bool Consume(size_t k) {
    pos_ += k;
    return budget_->Charge(k) || Stop();
  }
  // Skips (without charging) the points below t. False at the end.
  bool SkipBelow(Timestamp t);
  // The query's budget, for stages that hold memory or loop without
  // reading points.
  QueryBudget* budget() const { return budget_; }

 private:
  bool Fill();  // refills the buffer; at the end records the iterator's error; false
  bool Stop();  // ends the source (budget exhausted); false
  // Holds what the iterator holds now (HeldBytes) in the budget; false
  // when that is over the limit.
  bool Account();

  std::unique_ptr<SampleIterator> it_;
  QueryBudget* const budget_;
  bool done_ = false;
  uint64_t held_ = 0;  // bytes held in the budget for the iterator's points
  size_t pos_ = 0;
  size_t n_ = 0;
  Timestamp ts_[kBatch];
  Value vs_[kBatch];
};

// Bucket boundaries of a downsampler.
struct DownsampleContext {
  const DownsampleSpec* spec;
  const TimeZone* tz;
  Timestamp query_start_ms;  // "all": bucket timestamp and lower bound
  Timestamp query_end_ms;    // "all": exclusive upper bound
  Timestamp scan_start_ms;   // filling: first expected bucket
  Timestamp scan_end_ms;     // filling: end of expected buckets
};

// The downsample stage alone (fill policy none: non-empty buckets only).
// Yields Value::Float values. REQUIRES: ctx.spec->enabled.
std::unique_ptr<PointSource> NewDownsampleSource(std::unique_ptr<RawSource> raw,
                                                 const DownsampleContext& ctx);
// Builds raw -> downsample -> rate for one series. Takes ownership of raw.
std::unique_ptr<PointSource> BuildSeriesPipeline(std::unique_ptr<RawSource> raw,
                                                 const SubQuery& q, const DownsampleContext& ctx);
// The stages after downsampling (fill, rate) over an already downsampled
// source (rollup_source.h). REQUIRES: q.downsample.enabled.
std::unique_ptr<PointSource> BuildAfterDownsample(std::unique_ptr<PointSource> downsampled,
                                                  const SubQuery& q, const DownsampleContext& ctx);

// Runs pipeline to its end and keeps its output points, holding
// sizeof(Point) bytes each in budget: a group of many downsampled series
// then holds each member's buckets, not its storage iterator with a
// decoded run of points. The pipeline is destroyed before this returns.
// Null when the budget ran out (budget->status() says why).
std::unique_ptr<PointSource> Materialize(std::unique_ptr<PointSource> pipeline,
                                         QueryBudget* budget);

}  // namespace sundial::query
