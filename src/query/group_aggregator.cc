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
  cur_.resize(n);
  next_.resize(n);
  cur_valid_.assign(n, 0);
  next_valid_.assign(n, 0);
  longs_.reserve(n);
  doubles_.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    next_valid_[i] = sources_[i]->Next(&next_[i]);
    if (!next_valid_[i]) continue;
    // A rate series starts with its hidden first rate as the current
    // point, so it takes part from the first output timestamp on.
    if (rate_) MoveToNext(i);
  }
}

void GroupAggregator::MoveToNext(size_t i) {
  cur_[i] = next_[i];
  cur_valid_[i] = 1;
  next_valid_[i] = sources_[i]->Next(&next_[i]);
}

bool GroupAggregator::Next(Point* out) {
  const size_t n = sources_.size();
  // Series that reached their end stop taking part.
  for (size_t i = 0; i < n; ++i) {
    if (!next_valid_[i]) cur_valid_[i] = 0;
  }
  size_t first = n;
  Timestamp min_t = std::numeric_limits<Timestamp>::max();
  bool multiple = false;
  for (size_t i = 0; i < n; ++i) {
    if (!next_valid_[i]) continue;
    if (next_[i].t < min_t) {
      min_t = next_[i].t;
      first = i;
      multiple = false;
    } else if (next_[i].t == min_t) {
      multiple = true;
    }
  }
  if (first == n) return false;
  current_ = first;
  MoveToNext(first);
  if (multiple) {
    for (size_t i = first + 1; i < n; ++i) {
      if (next_valid_[i] && next_[i].t == min_t) MoveToNext(i);
    }
  }
  out->t = min_t;
  out->v = Compute(min_t);
  return true;
}

Value GroupAggregator::Compute(Timestamp x) {
  const size_t n = sources_.size();
  bool integer = !rate_;
  for (size_t i = 0; i < n && integer; ++i) {
    if ((cur_valid_[i] && !cur_[i].v.is_int()) || (next_valid_[i] && !next_[i].v.is_int())) {
      integer = false;
    }
  }
  if (integer) {
    longs_.clear();
    for (size_t i = 0; i < n; ++i) {
      if (!cur_valid_[i]) continue;
      const int64_t y0 = cur_[i].v.int_value();
      const Timestamp x0 = cur_[i].t;
      if (i == current_ || x == x0 || !next_valid_[i]) {
        longs_.push_back(y0);
        continue;
      }
      const int64_t y1 = next_[i].v.int_value();
      const Timestamp x1 = next_[i].t;
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
    if (!cur_valid_[i]) continue;
    const double y0 = cur_[i].v.AsDouble();
    const Timestamp x0 = cur_[i].t;
    if (i == current_ || rate_ || x == x0 || !next_valid_[i]) {
      doubles_.push_back(y0);
      continue;
    }
    const double y1 = next_[i].v.AsDouble();
    const Timestamp x1 = next_[i].t;
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
