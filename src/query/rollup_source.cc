#include "rollup_source.h"

#include <limits>

#include "sundial/query/time_util.h"

namespace sundial::query {
namespace {

using rollup::HourState;
using rollup::HourStats;
using rollup::kHourMs;
using rollup::RollupFn;

constexpr int64_t kMaxCalendarSteps = 1 << 20;

bool ToRollupFn(AggFn fn, RollupFn* out) {
  switch (fn) {
    case AggFn::kSum: *out = RollupFn::kSum; return true;
    case AggFn::kCount: *out = RollupFn::kCount; return true;
    case AggFn::kMin: *out = RollupFn::kMin; return true;
    case AggFn::kMax: *out = RollupFn::kMax; return true;
    case AggFn::kAvg: *out = RollupFn::kAvg; return true;
    case AggFn::kFirst: *out = RollupFn::kFirst; return true;
    case AggFn::kLast: *out = RollupFn::kLast; return true;
    default: return false;
  }
}

RollupFn FnOf(const DownsampleContext& ctx) {
  RollupFn fn = RollupFn::kSum;
  (void)ToRollupFn(ctx.spec->fn->fn, &fn);
  return fn;
}

bool OnHour(Timestamp t) { return t % kHourMs == 0; }

// The same grid as the raw downsampler (series_source.cc).
Timestamp CalendarStart(const DownsampleContext& ctx, Timestamp t) {
  return PreviousInterval(t < 0 ? 0 : t, ctx.spec->count, ctx.spec->unit, *ctx.tz);
}
Timestamp CalendarStep(const DownsampleContext& ctx, Timestamp t) {
  const DownsampleSpec& s = *ctx.spec;
  if (s.unit == CalendarUnit::kWeek) return AddCalendar(t, CalendarUnit::kDay, int64_t{s.count} * 7, *ctx.tz);
  return AddCalendar(t, s.unit, s.count, *ctx.tz);
}

}  // namespace

bool RollupEligible(const SubQuery& q, const DownsampleContext& ctx) {
  const DownsampleSpec& ds = q.downsample;
  RollupFn fn;
  if (!ds.enabled || ds.all || ds.fn == nullptr || !ToRollupFn(ds.fn->fn, &fn)) return false;
  if (ctx.scan_start_ms < 0 || !OnHour(ctx.scan_start_ms) || !OnHour(ctx.scan_end_ms)) return false;
  if (!ds.calendar) return ds.interval_ms > 0 && ds.interval_ms % kHourMs == 0;
  switch (ds.unit) {
    case CalendarUnit::kHour:
    case CalendarUnit::kDay:
    case CalendarUnit::kWeek:
    case CalendarUnit::kMonth:
    case CalendarUnit::kYear:
      break;
    default:
      return false;
  }
  if (ds.count <= 0) return false;
  // Every boundary the downsampler can use inside the window.
  Timestamp b = CalendarStart(ctx, ctx.scan_start_ms);
  for (int64_t i = 0; i < kMaxCalendarSteps; ++i) {
    if (b % kHourMs != 0) return false;
    if (b >= ctx.scan_end_ms) return true;
    const Timestamp next = CalendarStep(ctx, b);
    if (next <= b) return false;
    b = next;
  }
  return false;
}

RollupSource::RollupSource(storage::Storage* storage, const rollup::RollupStore* rollups,
                           SeriesId id, const DownsampleContext& ctx, QueryBudget* budget,
                           const std::vector<std::pair<Timestamp, Timestamp>>* partitions)
    : storage_(storage),
      id_(id),
      ctx_(ctx),
      budget_(budget),
      cursor_(rollups->NewCursor(id, ctx.scan_start_ms, ctx.scan_end_ms)),
      combiner_(FnOf(ctx)),
      hour_(ctx.scan_start_ms),
      partitions_(partitions) {}

bool RollupSource::MayHavePoints(Timestamp hour) {
  const auto& p = *partitions_;
  if (p.empty()) return true;
  while (partition_ < p.size() && p[partition_].second <= hour) ++partition_;
  return partition_ < p.size() && p[partition_].first < hour + kHourMs;
}

bool RollupSource::Prime() {
  have_primed_ = Compute(&primed_);
  return have_primed_;
}

bool RollupSource::Next(Point* p) {
  if (have_primed_) {
    have_primed_ = false;
    *p = primed_;
    return true;
  }
  return Compute(p);
}

Timestamp RollupSource::Step(Timestamp t) const { return CalendarStep(ctx_, t); }

bool RollupSource::Compute(Point* p) {
  HourStats h;
  if (have_pending_) {
    h = pending_;
    have_pending_ = false;
  } else if (!NextHour(&h)) {
    return false;
  }
  Timestamp b0 = 0, b1 = 0;
  if (!ctx_.spec->calendar) {
    const int64_t iv = ctx_.spec->interval_ms;
    int64_t r = h.first_t % iv;
    if (r < 0) r += iv;
    b0 = h.first_t - r;
    b1 = b0 + iv;
  } else {
    if (!calendar_started_) {
      calendar_started_ = true;
      prev_ = CalendarStart(ctx_, h.first_t);
      end_ = Step(prev_);
    }
    while (h.first_t >= end_) {
      prev_ = Step(prev_);
      end_ = Step(end_);
    }
    b0 = prev_;
    b1 = end_;
  }
  combiner_.Reset();
  combiner_.Add(h);
  while (NextHour(&h)) {
    if (h.hour >= b1) {
      pending_ = h;
      have_pending_ = true;
      break;
    }
    combiner_.Add(h);
  }
  if (!budget_->status().ok()) return false;
  p->t = b0;
  const double v = combiner_.Exact()
                       ? combiner_.Result()
                       : RawBucket(std::max(b0, ctx_.scan_start_ms), std::min(b1, ctx_.scan_end_ms));
  p->v = Value::Float(v);
  return budget_->status().ok();
}

bool RollupSource::NextHour(HourStats* out) {
  while (hour_ < ctx_.scan_end_ms) {
    const Timestamp h = hour_;
    hour_ += kHourMs;
    if (!MayHavePoints(h)) continue;  // e.g. a day before the first point
    const HourState st = cursor_->Get(h, out);
    if (st == HourState::kRolled) return true;
    if (st == HourState::kRaw && RawHour(h, out)) return true;
    if (!budget_->status().ok()) return false;
  }
  return false;
}

bool RollupSource::RawHour(Timestamp hour, HourStats* out) {
  if (!raw_) {
    raw_ = std::make_unique<RawSource>(storage_->NewIterator(id_, hour, ctx_.scan_end_ms - 1),
                                       budget_);
    raw_has_ = raw_->Peek();
  } else if (raw_has_) {
    raw_has_ = raw_->SkipBelow(hour);
  }
  *out = HourStats();
  out->hour = hour;
  const Timestamp end = hour + kHourMs;
  while (raw_has_) {
    const Timestamp* ts = raw_->ts();
    const Value* vs = raw_->vs();
    const size_t b = raw_->pos(), e = raw_->size();
    size_t i = b;
    while (i < e && ts[i] < end) {
      out->Add(ts[i], vs[i].AsDouble());
      ++i;
    }
    if (!raw_->Consume(i - b)) return false;  // the budget ran out
    if (i < e) break;
    raw_has_ = raw_->Peek();  // at the end, records the iterator's error
  }
  return !out->empty();
}

double RollupSource::RawBucket(Timestamp lo, Timestamp hi) {
  values_.clear();
  RawSource raw(storage_->NewIterator(id_, lo, hi - 1), budget_);
  while (raw.Peek()) {
    const size_t b = raw.pos(), e = raw.size();
    for (size_t i = b; i < e; ++i) values_.push_back(raw.vs()[i].AsDouble());
    if (!raw.Consume(e - b)) break;
  }
  if (values_.empty()) return std::numeric_limits<double>::quiet_NaN();
  return RunDouble(*ctx_.spec->fn, values_.data(), values_.size());
}

}  // namespace sundial::query
