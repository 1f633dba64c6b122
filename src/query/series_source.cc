#include "series_source.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace sundial::query {
namespace {

// Fixed or calendar bucket grid.
class Grid {
 public:
  explicit Grid(const DownsampleContext& ctx) : ctx_(ctx) {}
  bool calendar() const { return ctx_.spec->calendar; }
  int64_t Align(int64_t t) const {
    const int64_t i = ctx_.spec->interval_ms;
    int64_t r = t % i;
    if (r < 0) r += i;
    return t - r;
  }
  int64_t CalendarStart(int64_t t) const {
    return PreviousInterval(t < 0 ? 0 : t, ctx_.spec->count, ctx_.spec->unit, *ctx_.tz);
  }
  int64_t Step(int64_t t, int sign) const {
    const DownsampleSpec& s = *ctx_.spec;
    if (!s.calendar) return t + sign * s.interval_ms;
    if (s.unit == CalendarUnit::kWeek) {
      return AddCalendar(t, CalendarUnit::kDay, int64_t{sign} * s.count * 7, *ctx_.tz);
    }
    return AddCalendar(t, s.unit, int64_t{sign} * s.count, *ctx_.tz);
  }

 private:
  const DownsampleContext& ctx_;
};

// OpenTSDB Downsampler (fill policy none): one point per non-empty bucket,
// or one point for the whole range with "all". It folds the raw source's
// buffered arrays directly.
class DownsampleSource final : public PointSource {
 public:
  DownsampleSource(std::unique_ptr<RawSource> src, const DownsampleContext& ctx)
      : src_(std::move(src)), ctx_(ctx), grid_(ctx_) {}
  ~DownsampleSource() override { src_->budget()->Release(reserved_); }

  bool Next(Point* p) override {
    if (!started_) Start();
    if (finished_ || !src_->Peek()) return false;
    if (ctx_.spec->all) {
      finished_ = true;
      p->t = ctx_.query_start_ms;
      return Bucket(ctx_.query_end_ms, &p->v);
    }
    const Timestamp t0 = src_->ts()[src_->pos()];
    if (!grid_.calendar()) {
      prev_ = grid_.Align(t0);
      end_ = prev_ + ctx_.spec->interval_ms;
    } else {
      while (t0 >= end_) {
        prev_ = grid_.Step(prev_, 1);
        end_ = grid_.Step(end_, 1);
        if (!src_->budget()->Tick()) return false;
      }
    }
    p->t = prev_;
    return Bucket(end_, &p->v);
  }

 private:
  // Calls f(value as double) for each raw point below end, in time order,
  // consuming them. Returns how many there were.
  template <typename F>
  size_t Scan(Timestamp end, F&& f) {
    size_t total = 0;
    while (src_->Peek()) {
      const Timestamp* ts = src_->ts();
      const Value* vs = src_->vs();
      const size_t b = src_->pos(), e = src_->size();
      size_t i = b;
      while (i < e && ts[i] < end) {
        f(vs[i].AsDouble());
        ++i;
      }
      total += i - b;
      if (!src_->Consume(i - b) || i < e) break;
    }
    return total;
  }

  // The bucket of the points below end. Sum, min, max and avg are folded
  // as the points go by, with the same result as RunDouble over the
  // bucket's values (NaN skipped, added in time order; NaN when every
  // value is NaN or, for min/max, when no value beats the infinity); the
  // other functions collect the values for RunDouble. False if the bucket
  // has no point.
  bool Bucket(Timestamp end, Value* out) {
    const AggFn fn = ctx_.spec->fn->fn;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    if (fn == AggFn::kSum || fn == AggFn::kAvg) {
      double r = 0.0;
      size_t k = 0;
      const size_t n = Scan(end, [&](double x) {
        if (std::isnan(x)) return;
        r += x;
        ++k;
      });
      if (fn == AggFn::kAvg && k != 0) r /= static_cast<int32_t>(k);
      *out = Value::Float(k == 0 ? nan : r);
      return n > 0;
    }
    if (fn == AggFn::kMin || fn == AggFn::kMax) {
      const bool is_min = fn == AggFn::kMin;
      double r = is_min ? inf : -inf;
      const size_t n = is_min ? Scan(end, [&](double x) { r = x < r ? x : r; })
                              : Scan(end, [&](double x) { r = x > r ? x : r; });
      // NaN never compares true, so it is skipped.
      *out = Value::Float(std::isinf(r) && is_min == (r > 0) ? nan : r);
      return n > 0;
    }
    values_.clear();
    bool held = true;
    Scan(end, [&](double x) {
      if (values_.size() == values_.capacity() && held) {
        // The vector is about to grow: hold the memory it will take.
        const size_t grow = std::max<size_t>(values_.capacity(), 16) * sizeof(double);
        held = src_->budget()->Reserve(grow);
        reserved_ += grow;
      }
      if (held) values_.push_back(x);
    });
    if (!held || values_.empty()) return false;
    *out = Value::Float(RunDouble(*ctx_.spec->fn, values_.data(), values_.size()));
    return true;
  }

  void Start() {
    started_ = true;
    if (ctx_.spec->all) {
      src_->SkipBelow(ctx_.query_start_ms);
      return;
    }
    if (src_->Peek() && grid_.calendar()) {
      prev_ = grid_.CalendarStart(src_->ts()[src_->pos()]);
      end_ = grid_.Step(prev_, 1);
    }
  }

  std::unique_ptr<RawSource> src_;
  const DownsampleContext ctx_;
  const Grid grid_;
  bool started_ = false;
  bool finished_ = false;  // "all": the one bucket was produced
  Timestamp prev_ = 0;  // current bucket start
  Timestamp end_ = 0;   // current bucket end (exclusive)
  std::vector<double> values_;
  uint64_t reserved_ = 0;  // bytes held in the budget for values_
};

// OpenTSDB FillingDownsampler: every expected bucket between the aligned
// scan bounds, missing ones filled with NaN or 0.
class FillingSource final : public PointSource {
 public:
  FillingSource(std::unique_ptr<PointSource> inner, const DownsampleContext& ctx)
      : inner_(std::move(inner)), ctx_(ctx), grid_(ctx_) {
    if (!grid_.calendar()) {
      ts_ = grid_.Align(ctx_.scan_start_ms);
      end_ts_ = grid_.Align(ctx_.scan_end_ms);
    } else {
      ts_ = grid_.CalendarStart(ctx_.scan_start_ms);
      end_ts_ = grid_.CalendarStart(ctx_.scan_end_ms);
      if (end_ts_ == ts_) end_ts_ = grid_.Step(end_ts_, 1);
    }
    have_actual_ = inner_->Next(&actual_);
  }

  bool Next(Point* p) override {
    if (ts_ >= end_ts_) return false;
    while (have_actual_ && actual_.t < ts_) have_actual_ = inner_->Next(&actual_);
    p->t = ts_;
    if (have_actual_ && actual_.t == ts_) {
      p->v = actual_.v;
      have_actual_ = inner_->Next(&actual_);
    } else {
      p->v = Value::Float(ctx_.spec->fill == FillPolicy::kZero
                              ? 0.0
                              : std::numeric_limits<double>::quiet_NaN());
    }
    ts_ = grid_.Step(ts_, 1);
    return true;
  }

 private:
  std::unique_ptr<PointSource> inner_;
  const DownsampleContext ctx_;
  const Grid grid_;
  Timestamp ts_ = 0;
  Timestamp end_ts_ = 0;
  bool have_actual_ = false;
  Point actual_;
};

int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

// OpenTSDB RateSpan: the first rate is computed against (t=0, v=0), as
// OpenTSDB does; the aggregation stage hides it.
class RateSource final : public PointSource {
 public:
  RateSource(std::unique_ptr<PointSource> src, const RateOptions& opts)
      : src_(std::move(src)), opts_(opts) {}

  bool Next(Point* p) override {
    Point cur;
    while (src_->Next(&cur)) {
      if (cur.t <= prev_.t) {  // cannot happen after the first point
        prev_ = cur;
        continue;
      }
      const double dt = static_cast<double>(cur.t - prev_.t) / 1000.0;
      const bool ints = prev_.v.is_int() && cur.v.is_int();
      double diff = ints ? static_cast<double>(WrapSub(cur.v.int_value(), prev_.v.int_value()))
                         : cur.v.AsDouble() - prev_.v.AsDouble();
      double rate = 0;
      if (opts_.counter && diff < 0) {
        if (opts_.drop_resets) {
          prev_ = cur;
          continue;
        }
        if (ints) {
          diff = static_cast<double>(
              WrapAdd(WrapSub(opts_.counter_max, prev_.v.int_value()), cur.v.int_value()));
        } else {
          diff = static_cast<double>(opts_.counter_max) - prev_.v.AsDouble() + cur.v.AsDouble();
        }
        rate = diff / dt;
        if (opts_.reset_value > 0 && rate > static_cast<double>(opts_.reset_value)) rate = 0.0;
      } else {
        rate = diff / dt;
      }
      prev_ = cur;
      p->t = cur.t;
      p->v = Value::Float(rate);
      return true;
    }
    return false;
  }

 private:
  std::unique_ptr<PointSource> src_;
  const RateOptions opts_;
  Point prev_;  // starts at (0, int 0)
};

}  // namespace

QueryBudget::QueryBudget(const BudgetLimits& limits)
    : limits_(limits), start_(std::chrono::steady_clock::now()) {
  SetNextChecks();
}

QueryBudget::QueryBudget(uint64_t max_points, int64_t deadline_ms, bool points_limit_is_soft)
    : QueryBudget([&] {
        BudgetLimits l;
        l.max_points = max_points;
        l.deadline_ms = deadline_ms;
        l.points_limit_is_soft = points_limit_is_soft;
        return l;
      }()) {}

void QueryBudget::SetNextChecks() {
  next_check_ = points_ + kCheckEvery;
  if (limits_.max_points != 0 && next_check_ > limits_.max_points) {
    next_check_ = std::max(points_, limits_.max_points);
  }
  uint64_t out_limit = limits_.max_output_points;
  if (limits_.soft_output_points != 0 && (out_limit == 0 || limits_.soft_output_points < out_limit)) {
    out_limit = limits_.soft_output_points;
  }
  next_emit_check_ = emitted_ + kCheckEvery;
  if (out_limit != 0 && next_emit_check_ > out_limit) {
    next_emit_check_ = std::max(emitted_, out_limit);
  }
}

bool QueryBudget::Reserve(uint64_t bytes) {
  memory_ += bytes;
  if (limits_.max_memory == 0 || memory_ <= limits_.max_memory) return status_.ok();
  Fail(Status::ResourceExhausted(MemoryLimitMessage(limits_.max_memory)));
  return false;
}

bool QueryBudget::Check() {
  if (!status_.ok()) return false;
  if (limits_.max_points != 0 && points_ > limits_.max_points) {
    if (limits_.points_limit_is_soft) {
      status_ = Status::Busy("more raw points than the small-query bound");
      return false;
    }
    status_ = Status::ResourceExhausted(PointsLimitMessage(limits_.max_points));
    return false;
  }
  if (limits_.soft_output_points != 0 && emitted_ > limits_.soft_output_points) {
    status_ = Status::Busy("more output points than the small-query bound");
    return false;
  }
  if (limits_.max_output_points != 0 && emitted_ > limits_.max_output_points) {
    status_ = Status::ResourceExhausted(OutputPointsMessage(limits_.max_output_points));
    return false;
  }
  if (limits_.deadline_ms > 0 || limits_.soft_deadline_us > 0) {
    const auto el = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start_);
    if (limits_.soft_deadline_us > 0 && el.count() > limits_.soft_deadline_us) {
      status_ = Status::Busy("longer than the small-query bound");
      return false;
    }
    if (limits_.deadline_ms > 0 && el.count() > limits_.deadline_ms * 1000) {
      status_ = Status::DeadlineExceeded(
          "Query timed out: it ran longer than the limit of " +
          std::to_string(limits_.deadline_ms) + " ms (query.deadline)");
      return false;
    }
  }
  SetNextChecks();
  return true;
}

BudgetLimits QueryBudget::PartLimits() const {
  const auto left = [](uint64_t limit, uint64_t used) -> uint64_t {
    if (limit == 0) return 0;
    return used < limit ? limit - used : 1;
  };
  BudgetLimits l = limits_;
  l.max_points = left(limits_.max_points, points_);
  l.max_output_points = left(limits_.max_output_points, emitted_);
  l.soft_output_points = left(limits_.soft_output_points, emitted_);
  const int64_t elapsed_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::steady_clock::now() - start_)
                                 .count();
  if (limits_.deadline_ms > 0) {
    l.deadline_ms = std::max<int64_t>(1, limits_.deadline_ms - elapsed_us / 1000);
  }
  if (limits_.soft_deadline_us > 0) {
    l.soft_deadline_us = std::max<int64_t>(1, limits_.soft_deadline_us - elapsed_us);
  }
  return l;
}

bool QueryBudget::Absorb(const QueryBudget& part) {
  const auto fits = [](uint64_t limit, uint64_t used, uint64_t more) {
    return limit == 0 || (used <= limit && more <= limit - used);
  };
  if (!status_.ok() || !part.status_.ok() || !fits(limits_.max_points, points_, part.points_) ||
      !fits(limits_.max_output_points, emitted_, part.emitted_) ||
      !fits(limits_.soft_output_points, emitted_, part.emitted_)) {
    return false;
  }
  points_ += part.points_;
  emitted_ += part.emitted_;
  SetNextChecks();
  return true;
}

std::string SeriesLimitMessage(uint64_t limit) {
  return "Sorry, you have attempted to fetch more than our limit of " + std::to_string(limit) +
         " time series (query.max_series). Please try filtering using more tags or use fewer "
         "sub-queries.";
}

std::string PointsLimitMessage(uint64_t limit) {
  return "Sorry, you have attempted to fetch more than our limit of " + std::to_string(limit) +
         " data points. Please try filtering using more tags or decrease your time range.";
}

std::string MemoryLimitMessage(uint64_t limit) {
  return "Sorry, this query needs more than the memory limit of " + std::to_string(limit) +
         " bytes (query.max_memory). Please query fewer series at once (more tags, fewer "
         "sub-queries or less grouping) or raise query.max_memory.";
}

std::string OutputPointsMessage(uint64_t limit) {
  return "Sorry, this query would return more than our limit of " + std::to_string(limit) +
         " data points (query.max_output_points). Please use a coarser downsample interval, a "
         "shorter time range or fewer series.";
}

std::string OutputBytesMessage(uint64_t limit) {
  return "Sorry, this query would return more than our limit of " + std::to_string(limit) +
         " bytes (query.max_output_bytes). Please use a coarser downsample interval, a shorter "
         "time range or fewer series.";
}

RawSource::RawSource(std::unique_ptr<SampleIterator> it, QueryBudget* budget)
    : it_(std::move(it)), budget_(budget) {}

bool RawSource::Fill() {
  pos_ = n_ = 0;
  if (done_) return false;
  n_ = it_->NextBatch(ts_, vs_, kBatch);
  if (!Account()) return Stop();
  if (n_ > 0) return true;
  done_ = true;
  if (!it_->status().ok()) budget_->Fail(it_->status());
  return false;
}

bool RawSource::Account() {
  const uint64_t now = it_->HeldBytes();
  if (now <= held_) {
    budget_->Release(held_ - now);
    held_ = now;
    return true;
  }
  const uint64_t more = now - held_;
  held_ = now;  // counted even when refused
  return budget_->Reserve(more);
}

bool RawSource::Stop() {
  done_ = true;
  pos_ = n_ = 0;
  return false;
}

bool RawSource::SkipBelow(Timestamp t) {
  while (pos_ < n_ && ts_[pos_] < t) ++pos_;
  if (pos_ < n_) return true;
  if (done_) return false;
  // The buffer is used up and below t: let the iterator seek.
  pos_ = n_ = 0;
  const bool found = it_->Seek(t);
  if (!Account()) return Stop();
  if (!found) {
    done_ = true;
    if (!it_->status().ok()) budget_->Fail(it_->status());
    return false;
  }
  ts_[0] = it_->t();
  vs_[0] = it_->v();
  n_ = 1;
  return true;
}

std::unique_ptr<PointSource> NewDownsampleSource(std::unique_ptr<RawSource> raw,
                                                 const DownsampleContext& ctx) {
  return std::make_unique<DownsampleSource>(std::move(raw), ctx);
}

std::unique_ptr<PointSource> BuildSeriesPipeline(std::unique_ptr<RawSource> raw,
                                                 const SubQuery& q, const DownsampleContext& ctx) {
  if (q.downsample.enabled) {
    return BuildAfterDownsample(NewDownsampleSource(std::move(raw), ctx), q, ctx);
  }
  std::unique_ptr<PointSource> src = std::move(raw);
  if (q.rate) src = std::make_unique<RateSource>(std::move(src), q.rate_options);
  return src;
}

std::unique_ptr<PointSource> BuildAfterDownsample(std::unique_ptr<PointSource> src,
                                                  const SubQuery& q, const DownsampleContext& ctx) {
  const DownsampleSpec& ds = q.downsample;
  if (ds.fill != FillPolicy::kNone && !ds.all) {
    src = std::make_unique<FillingSource>(std::move(src), ctx);
  }
  if (q.rate) src = std::make_unique<RateSource>(std::move(src), q.rate_options);
  return src;
}

namespace {

// What Materialize returns: the points, and the memory held for them.
class MaterializedSource final : public PointSource {
 public:
  MaterializedSource(std::vector<Point> points, QueryBudget* budget, uint64_t held)
      : points_(std::move(points)), budget_(budget), held_(held) {}
  ~MaterializedSource() override { budget_->Release(held_); }

  bool Next(Point* p) override {
    if (next_ == points_.size()) return false;
    *p = points_[next_++];
    return true;
  }

 private:
  const std::vector<Point> points_;
  QueryBudget* const budget_;
  const uint64_t held_;
  size_t next_ = 0;
};

}  // namespace

std::unique_ptr<PointSource> Materialize(std::unique_ptr<PointSource> pipeline,
                                         QueryBudget* budget) {
  std::vector<Point> points;
  uint64_t held = 0;
  Point p;
  while (pipeline->Next(&p)) {
    if (points.size() == points.capacity()) {
      // Grown by hand, so that the budget holds exactly the capacity.
      const size_t more = std::max<size_t>(points.capacity(), 16);
      held += more * sizeof(Point);  // counted even when refused
      if (!budget->Reserve(more * sizeof(Point))) break;
      points.reserve(points.capacity() + more);
    }
    points.push_back(p);
  }
  pipeline.reset();
  if (!budget->status().ok()) {
    budget->Release(held);
    return nullptr;
  }
  return std::make_unique<MaterializedSource>(std::move(points), budget, held);
}

}  // namespace sundial::query
