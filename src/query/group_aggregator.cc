#include "group_aggregator.h"

#include <limits>
#include <utility>

namespace sundial::query {
namespace {

int64_t WrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t WrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t WrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

}  // namespace

GroupAggregator::GroupAggregator(std::vector<std::unique_ptr<PointSource>> sources,
                                 const Aggregator& agg, bool rate)
    : sources_(std::move(sources)), agg_(agg), rate_(rate) {
  const size_t n = sources_.size();
  m_.resize(n);
  if (n > 1) {  // NextOfOne needs neither
    longs_.reserve(n);
    doubles_.reserve(n);
  }
  for (size_t i = 0; i < n; ++i) {
    m_[i].next_valid = sources_[i]->Next(&m_[i].next);
    if (!m_[i].next_valid) continue;
    // A rate series starts with its hidden first rate as the current
    // point, so it takes part from the first output timestamp on.
    if (rate_) MoveToNext(i);
  }
}

void GroupAggregator::MoveToNext(size_t i) {
  Member& m = m_[i];
  m.cur = m.next;
  m.cur_valid = true;
  m.next_valid = sources_[i]->Next(&m.next);
}

bool GroupAggregator::Next(Point* out) {
  const size_t n = sources_.size();
  if (n == 1) return NextOfOne(out);
  // Series that reached their end stop taking part.
  for (size_t i = 0; i < n; ++i) {
    if (!m_[i].next_valid) m_[i].cur_valid = false;
  }
  size_t first = n;
  Timestamp min_t = std::numeric_limits<Timestamp>::max();
  bool multiple = false;
  for (size_t i = 0; i < n; ++i) {
    const Member& m = m_[i];
    if (!m.next_valid) continue;
    if (m.next.t < min_t) {
      min_t = m.next.t;
      first = i;
      multiple = false;
    } else if (m.next.t == min_t) {
      multiple = true;
    }
  }
  if (first == n) return false;
  current_ = first;
  MoveToNext(first);
  if (multiple) {
    for (size_t i = first + 1; i < n; ++i) {
      if (m_[i].next_valid && m_[i].next.t == min_t) MoveToNext(i);
    }
  }
  out->t = min_t;
  out->v = Compute(min_t);
  return true;
}

// One series: every output point is one of its points, aggregated alone,
// so there is nothing to interpolate (what Compute does with one member).
bool GroupAggregator::NextOfOne(Point* out) {
  if (!m_[0].next_valid) return false;
  MoveToNext(0);
  const Member& m = m_[0];
  out->t = m.cur.t;
  if (!rate_ && m.cur.v.is_int() && (!m.next_valid || m.next.v.is_int())) {
    int64_t y = m.cur.v.int_value();
    out->v = Value::Int(RunLong(agg_, &y, 1));
  } else {
    double y = m.cur.v.AsDouble();
    out->v = Value::Float(RunDouble(agg_, &y, 1));
  }
  return true;
}

Value GroupAggregator::Compute(Timestamp x) {
  const size_t n = sources_.size();
  bool integer = !rate_;
  for (size_t i = 0; i < n && integer; ++i) {
    const Member& m = m_[i];
    if ((m.cur_valid && !m.cur.v.is_int()) || (m.next_valid && !m.next.v.is_int())) {
      integer = false;
    }
  }
  if (integer) {
    longs_.clear();
    for (size_t i = 0; i < n; ++i) {
      const Member& m = m_[i];
      if (!m.cur_valid) continue;
      const int64_t y0 = m.cur.v.int_value();
      const Timestamp x0 = m.cur.t;
      if (i == current_ || x == x0 || !m.next_valid) {
        longs_.push_back(y0);
        continue;
      }
      const int64_t y1 = m.next.v.int_value();
      const Timestamp x1 = m.next.t;
      int64_t r = 0;
      switch (agg_.interp) {
        case Interpolation::kLerp:
          r = WrapAdd(y0, WrapMul(x - x0, WrapSub(y1, y0)) / (x1 - x0));
          break;
        case Interpolation::kZim: r = 0; break;
        case Interpolation::kMax: r = std::numeric_limits<int64_t>::max(); break;
        case Interpolation::kMin: r = std::numeric_limits<int64_t>::min(); break;
        case Interpolation::kPrev: r = y0; break;
      }
      longs_.push_back(r);
    }
    return Value::Int(RunLong(agg_, longs_.data(), longs_.size()));
  }
  doubles_.clear();
  for (size_t i = 0; i < n; ++i) {
    const Member& m = m_[i];
    if (!m.cur_valid) continue;
    const double y0 = m.cur.v.AsDouble();
    const Timestamp x0 = m.cur.t;
    if (i == current_ || rate_ || x == x0 || !m.next_valid) {
      doubles_.push_back(y0);
      continue;
    }
    const double y1 = m.next.v.AsDouble();
    const Timestamp x1 = m.next.t;
    double r = 0;
    switch (agg_.interp) {
      case Interpolation::kLerp:
        r = y0 + static_cast<double>(x - x0) * (y1 - y0) / static_cast<double>(x1 - x0);
        break;
      case Interpolation::kZim: r = 0; break;
      case Interpolation::kMax: r = std::numeric_limits<double>::max(); break;
      case Interpolation::kMin: r = -std::numeric_limits<double>::max(); break;
      case Interpolation::kPrev: r = y0; break;
    }
    doubles_.push_back(r);
  }
  return Value::Float(RunDouble(agg_, doubles_.data(), doubles_.size()));
}

}  // namespace sundial::query
