#include "storage/series_iterator.h"

#include <algorithm>

namespace sundial::storage {

void DamageLog::Report(const Status& s) {
  count_.fetch_add(1, std::memory_order_relaxed);
  const std::string msg = s.ToString() + "; page skipped";
  MutexLock lock(&mu_);
  if (seen_.size() >= kMaxMessages) return;
  for (const auto& m : seen_) {
    if (m == msg) return;
  }
  seen_.push_back(msg);
}

std::vector<std::string> DamageLog::Take() {
  MutexLock lock(&mu_);
  std::vector<std::string> out(seen_.begin() + static_cast<std::ptrdiff_t>(taken_), seen_.end());
  taken_ = seen_.size();
  return out;
}

bool SeriesIterator::Cursor::Fill() {
  pos = 0;
  if (use_held) {
    n = held_given ? 0 : static_cast<uint32_t>(held_t.size());
    ts = held_t.data();
    vs = held_v.data();
    held_given = true;
    increasing = true;  // held points are sorted and unique
  } else {
    n = dec.Decode(tbuf, vbuf, kBatch);
    bool up = true;
    for (uint32_t i = 1; i < n; ++i) up &= tbuf[i] > tbuf[i - 1];
    increasing = up;
  }
  return n > 0;
}

bool SeriesIterator::Cursor::SeekTo(Timestamp lower) {
  if (pos < n && ts[pos] >= lower) return true;
  if (use_held) {  // one batch in time order
    pos = static_cast<uint32_t>(std::lower_bound(ts + pos, ts + n, lower) - ts);
    return pos < n;
  }
  if (!dec.status().ok() || lower > dec.header().max_t) {
    n = pos = 0;
    return false;
  }
  for (;;) {
    while (++pos < n) {
      if (ts[pos] >= lower) return true;
    }
    if (!Fill()) return false;
    if (ts[0] >= lower) return true;
    pos = 0;
  }
}

SeriesIterator::SeriesIterator(SeriesId series, Timestamp start, Timestamp end,
                               std::vector<Source> sources, std::vector<PartitionRef> pins,
                               DamageLog* damage, std::atomic<uint64_t>* pages_read,
                               const ReadAhead* kept)
    : series_(series),
      end_(end),
      pins_(std::move(pins)),
      sources_(std::move(sources)),
      lower_(start),
      done_(start > end),
      damage_(damage),
      pages_read_(pages_read),
      kept_(kept) {
  std::stable_sort(sources_.begin(), sources_.end(),
                   [](const Source& a, const Source& b) { return a.min_t < b.min_t; });
}

void SeriesIterator::Open(Source* src) {
  auto c = std::make_unique<Cursor>();
  c->priority = src->priority;
  bool points = false;  // a columnar cold page: its points, in time order
  if (src->part) {
    Status s = src->part->ReadColdPoints(series_, src->ref, &c->held_t, &c->held_v, &points);
    if (s.ok() && !points) s = src->part->ReadPage(series_, src->ref, &c->buf, kept_);
    if (pages_read_ != nullptr) pages_read_->fetch_add(1, std::memory_order_relaxed);
    if (!s.ok()) {
      if (damage_ != nullptr) damage_->Report(s);
      return;  // a damaged page is skipped; the rest of the series is kept
    }
  } else {
    c->buf.swap(src->bytes);
  }
  if (points) {
    const auto& del = src->deleted;
    if (!del.empty()) {
      size_t kept = 0;
      for (size_t i = 0; i < c->held_t.size(); ++i) {
        const Timestamp t = c->held_t[i];
        if (std::any_of(del.begin(), del.end(),
                        [t](const auto& r) { return t >= r.first && t <= r.second; })) {
          continue;
        }
        c->held_t[kept] = t;
        c->held_v[kept] = c->held_v[i];
        ++kept;
      }
      c->held_t.resize(kept);
      c->held_v.resize(kept);
    }
    c->use_held = true;
  } else {
    c->dec.Reset(c->buf);
  }
  if (!points && (src->arrival_order || !src->deleted.empty())) {
    // The open out-of-order page is small: sort it, last write wins. A
    // page with deleted ranges goes the same way (sealed pages are sorted
    // already) and loses the deleted points.
    std::vector<Sample> pts;
    while (uint32_t k = c->dec.Decode(c->tbuf, c->vbuf, Cursor::kBatch)) {
      for (uint32_t i = 0; i < k; ++i) pts.push_back(Sample{c->tbuf[i], c->vbuf[i]});
    }
    std::stable_sort(pts.begin(), pts.end(),
                     [](const Sample& a, const Sample& b) { return a.t < b.t; });
    for (size_t i = 0; i < pts.size(); ++i) {
      if (i + 1 < pts.size() && pts[i + 1].t == pts[i].t) continue;
      const Timestamp t = pts[i].t;
      if (std::any_of(src->deleted.begin(), src->deleted.end(),
                      [t](const auto& r) { return t >= r.first && t <= r.second; })) {
        continue;
      }
      c->held_t.push_back(t);
      c->held_v.push_back(pts[i].v);
    }
    c->use_held = true;
  }
  if (c->Fill() && c->SeekTo(lower_)) {
    active_.push_back(std::move(c));
  } else {
    Retire(c.get());
  }
}

void SeriesIterator::Retire(Cursor* c) {
  if (!c->status().ok() && damage_ != nullptr) {
    damage_->Report(c->status().WithContext("series " + std::to_string(series_)));
  }
}

bool SeriesIterator::Next() {
  // Fast path, the usual case: one open page and no other source starting
  // at or before its next point, so that point is the answer as it is.
  if (active_.size() == 1 && !done_) {
    Cursor* c = active_[0].get();
    const Timestamp t = c->t();
    if (t <= end_ && t != kMaxTimestamp &&
        (next_ >= sources_.size() || sources_[next_].min_t > t)) {
      t_ = t;
      v_ = c->v();
      bool alive = c->Advance();
      while (alive && c->t() <= t) alive = c->Advance();
      if (!alive) {
        Retire(c);
        active_.clear();
      }
      lower_ = t + 1;
      positioned_ = true;
      return true;
    }
  }
  while (!done_) {
    Timestamp frontier = kMaxTimestamp;
    for (const auto& c : active_) frontier = std::min(frontier, c->t());
    while (next_ < sources_.size() && sources_[next_].min_t <= frontier) {
      Source* src = &sources_[next_++];
      if (src->max_t < lower_) continue;
      const size_t before = active_.size();
      Open(src);
      if (active_.size() > before) frontier = std::min(frontier, active_.back()->t());
    }
    if (active_.empty()) {
      if (next_ >= sources_.size()) break;
      continue;
    }
    if (frontier > end_) break;
    const Cursor* best = nullptr;
    for (const auto& c : active_) {
      if (c->t() == frontier && (best == nullptr || c->priority >= best->priority)) best = c.get();
    }
    t_ = frontier;
    v_ = best->v();
    for (size_t i = 0; i < active_.size();) {
      Cursor* c = active_[i].get();
      // Pages written in order are strictly increasing; skip anything that
      // is not (a damaged or odd page) rather than go backwards.
      bool alive = true;
      while (alive && c->t() <= frontier) alive = c->Advance();
      if (alive) {
        ++i;
      } else {
        Retire(c);
        active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    lower_ = frontier == kMaxTimestamp ? frontier : frontier + 1;
    positioned_ = true;
    return true;
  }
  done_ = true;
  positioned_ = false;
  active_.clear();
  return false;
}

size_t SeriesIterator::NextBatch(Timestamp* out_t, Value* out_v, size_t max) {
  size_t k = 0;
  while (k < max) {
    // The fast path of Next(), a batch at a time: one open page, and its
    // points up to the next source's first timestamp (and end_) are the
    // answer as they are, less any that do not increase.
    if (active_.size() == 1 && !done_) {
      Cursor* c = active_[0].get();
      Timestamp bound = end_ < kMaxTimestamp ? end_ : kMaxTimestamp - 1;
      if (next_ < sources_.size() && sources_[next_].min_t <= bound) {
        bound = sources_[next_].min_t - 1;
      }
      if (c->t() <= bound && c->increasing) {
        // The batch's points increase strictly: the stretch in
        // [lower_, bound] is found by search and copied whole.
        const Timestamp* first = c->ts + c->pos;
        const Timestamp* last = c->ts + c->n;
        if (*first < lower_) first = std::lower_bound(first, last, lower_);
        const Timestamp* stop =
            first + std::min<size_t>(max - k, static_cast<size_t>(last - first));
        if (stop > first && stop[-1] > bound) stop = std::upper_bound(first, stop, bound);
        const auto m = static_cast<size_t>(stop - first);
        const Value* from = c->vs + (first - c->ts);
        std::copy(first, stop, out_t + k);
        std::copy(from, from + m, out_v + k);
        k += m;
        c->pos = static_cast<uint32_t>(stop - c->ts);
        if (m > 0) {
          t_ = stop[-1];
          v_ = out_v[k - 1];
          lower_ = t_ + 1;
          positioned_ = true;
        }
        if (c->pos == c->n && !c->Fill()) {
          Retire(c);
          active_.clear();
        }
        continue;
      }
      if (c->t() <= bound) {
        Timestamp lower = lower_;
        bool alive = true;
        for (;;) {
          const Timestamp t = c->ts[c->pos];
          if (t > bound) break;
          if (t >= lower) {
            if (k == max) break;  // the cursor stays on a point >= lower_
            out_t[k] = t;
            out_v[k] = c->vs[c->pos];
            ++k;
            lower = t + 1;
          }
          if (!c->Advance()) {
            alive = false;
            break;
          }
        }
        if (lower != lower_) {
          t_ = lower - 1;
          v_ = out_v[k - 1];
          lower_ = lower;
          positioned_ = true;
        }
        if (!alive) {
          Retire(c);
          active_.clear();
        }
        continue;
      }
    }
    if (!Next()) break;
    out_t[k] = t_;
    out_v[k] = v_;
    ++k;
  }
  return k;
}

size_t SeriesIterator::HeldBytes() const {
  size_t n = 0;
  for (const auto& c : active_) {
    n += c->held_t.capacity() * sizeof(Timestamp) + c->held_v.capacity() * sizeof(Value);
  }
  return n;
}

bool SeriesIterator::Seek(Timestamp t) {
  if (done_) return false;
  if (positioned_ && t_ >= t) return true;
  if (t > lower_) {
    lower_ = t;
    for (size_t i = 0; i < active_.size();) {
      if (active_[i]->t() >= t || active_[i]->SeekTo(t)) {
        ++i;
      } else {
        Retire(active_[i].get());
        active_.erase(active_.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
  }
  return Next();
}

}  // namespace sundial::storage
