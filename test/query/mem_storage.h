// MemStorage: a small in-memory Storage for query unit tests (no WAL, no
// pages). Series ids, UIDs and the index behave like the real engine's
// contract in storage.h: ids dense from 0, UIDs per kind from 1 in
// creation order, iterators in time order with last-write-wins.
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "sundial/query/query_engine.h"
#include "sundial/storage/storage.h"

namespace sundial::query::testing {

class MemStorage final : public storage::Storage {
 public:
  Status ResolveSeries(std::string_view metric, const storage::TagRef* tags, size_t num_tags,
                       SeriesId* id) override {
    std::lock_guard<std::mutex> l(mu_);
    storage::SeriesKey key;
    key.metric = std::string(metric);
    key.metric_uid = Uid(0, key.metric);
    for (size_t i = 0; i < num_tags; ++i) {
      key.tags.emplace_back(std::string(tags[i].key), std::string(tags[i].value));
    }
    std::sort(key.tags.begin(), key.tags.end());
    std::string canon = key.metric;
    for (const auto& kv : key.tags) {
      canon += "\x01" + kv.first + "=" + kv.second;
      key.tag_uids.emplace_back(Uid(1, kv.first), Uid(2, kv.second));
    }
    auto it = by_canon_.find(canon);
    if (it != by_canon_.end()) {
      *id = it->second;
      return Status::OK();
    }
    *id = static_cast<SeriesId>(series_.size());
    by_canon_.emplace(canon, *id);
    series_.push_back({std::move(key), {}});
    return Status::OK();
  }

  Status Append(const storage::SeriesPoint* points, size_t n) override {
    std::lock_guard<std::mutex> l(mu_);
    for (size_t i = 0; i < n; ++i) {
      if (points[i].series >= series_.size()) return Status::InvalidArgument("bad series");
      series_[points[i].series].points[points[i].t] = points[i].v;
    }
    return Status::OK();
  }

  // Convenience for tests: metric + "k=v" tags.
  SeriesId Add(const std::string& metric, const std::vector<std::pair<std::string, std::string>>& tags) {
    std::vector<storage::TagRef> refs;
    for (const auto& kv : tags) refs.push_back({kv.first, kv.second});
    SeriesId id = 0;
    (void)ResolveSeries(metric, refs.data(), refs.size(), &id);
    return id;
  }
  void Put(SeriesId id, Timestamp t, Value v) {
    storage::SeriesPoint p{id, t, v};
    (void)Append(&p, 1);
  }

  Status Sync() override { return Status::OK(); }

  std::unique_ptr<SampleIterator> NewIterator(SeriesId id, Timestamp start,
                                              Timestamp end) override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<Sample> pts;
    if (id < series_.size()) {
      const auto& m = series_[id].points;
      for (auto it = m.lower_bound(start); it != m.end() && it->first <= end; ++it) {
        pts.push_back({it->first, it->second});
      }
    }
    return std::make_unique<VecIterator>(std::move(pts));
  }

  // Records each hint: (ids, start, end, max_bytes, keep). Answers that it asked
  // for will_read_bytes of them (at most max_bytes), covering the first
  // will_read_covered ids.
  uint64_t WillRead(const std::vector<SeriesId>& ids, Timestamp start, Timestamp end,
                    uint64_t max_bytes, size_t* covered,
                    std::shared_ptr<const storage::ReadAhead>* kept) override {
    std::lock_guard<std::mutex> l(mu_);
    will_read.push_back({ids, start, end, max_bytes, kept != nullptr});
    if (kept != nullptr) kept->reset();
    *covered = std::min(ids.size(), will_read_covered);
    return std::min(max_bytes, will_read_bytes);
  }
  // Counts the iterators opened as covered by a hint.
  std::unique_ptr<SampleIterator> NewHintedIterator(SeriesId id, Timestamp start,
                                                    Timestamp end,
                                                    const storage::ReadAhead* /*kept*/) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      hinted_ids.push_back(id);
    }
    return NewIterator(id, start, end);
  }
  struct WillReadCall {
    std::vector<SeriesId> ids;
    Timestamp start, end;
    uint64_t max_bytes;
    bool keep;  // whether the caller let storage read into memory (kept)
  };
  std::vector<WillReadCall> will_read;
  uint64_t will_read_bytes = 0;
  size_t will_read_covered = 0;
  std::vector<SeriesId> hinted_ids;  // NewHintedIterator's, in call order

  Status LastPoint(SeriesId id, Sample* out) override {
    std::lock_guard<std::mutex> l(mu_);
    if (id >= series_.size() || series_[id].points.empty()) return Status::NotFound("no data");
    const auto& last = *series_[id].points.rbegin();
    *out = {last.first, last.second};
    return Status::OK();
  }

  std::vector<SeriesId> SeriesOfMetric(std::string_view metric) override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<SeriesId> out;
    for (SeriesId i = 0; i < series_.size(); ++i) {
      if (series_[i].key.metric == metric) out.push_back(i);
    }
    return out;
  }

  std::vector<SeriesId> SeriesWithTag(std::string_view key, std::string_view value) override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<SeriesId> out;
    for (SeriesId i = 0; i < series_.size(); ++i) {
      for (const auto& kv : series_[i].key.tags) {
        if (kv.first == key && kv.second == value) out.push_back(i);
      }
    }
    return out;
  }

  Status GetSeriesKey(SeriesId id, storage::SeriesKey* out) override {
    std::lock_guard<std::mutex> l(mu_);
    if (id >= series_.size()) return Status::NotFound("series");
    *out = series_[id].key;
    return Status::OK();
  }

  // Views into series_, whose elements never move (a deque that only grows).
  Status GetSeriesKeyRef(SeriesId id, storage::SeriesKeyRef* out) override {
    std::lock_guard<std::mutex> l(mu_);
    if (id >= series_.size()) return Status::NotFound("series");
    const storage::SeriesKey& key = series_[id].key;
    out->metric = key.metric;
    out->metric_uid = key.metric_uid;
    out->tags.assign(key.tags.begin(), key.tags.end());
    out->tag_uids = key.tag_uids;
    return Status::OK();
  }

  Status LookupUid(storage::NameKind kind, std::string_view name, uint32_t* uid) override {
    std::lock_guard<std::mutex> l(mu_);
    const auto& m = uids_[static_cast<int>(kind)];
    auto it = m.find(std::string(name));
    if (it == m.end()) return Status::NotFound("name");
    *uid = it->second;
    return Status::OK();
  }

  std::vector<std::string> SuggestNames(storage::NameKind kind, std::string_view prefix,
                                        size_t max) override {
    std::lock_guard<std::mutex> l(mu_);
    std::vector<std::string> out;
    for (const auto& kv : uids_[static_cast<int>(kind)]) {
      if (kv.first.compare(0, prefix.size(), prefix) != 0) continue;
      if (max != 0 && out.size() >= max) break;
      out.push_back(kv.first);
    }
    return out;
  }

  storage::StorageStats stats() override { return {}; }

 private:
  class VecIterator final : public SampleIterator {
   public:
    explicit VecIterator(std::vector<Sample> pts) : pts_(std::move(pts)) {}
    bool Next() override { return ++pos_ < pts_.size(); }
    bool Seek(Timestamp t) override {
      if (pos_ == static_cast<size_t>(-1)) pos_ = 0;
      while (pos_ < pts_.size() && pts_[pos_].t < t) ++pos_;
      return pos_ < pts_.size();
    }
    Timestamp t() const override { return pts_[pos_].t; }
    Value v() const override { return pts_[pos_].v; }
    Status status() const override { return Status::OK(); }

   private:
    std::vector<Sample> pts_;
    size_t pos_ = static_cast<size_t>(-1);
  };

  uint32_t Uid(int kind, const std::string& name) {
    auto& m = uids_[kind];
    auto it = m.find(name);
    if (it != m.end()) return it->second;
    const uint32_t uid = static_cast<uint32_t>(m.size() + 1);
    m.emplace(name, uid);
    return uid;
  }

  struct Series {
    storage::SeriesKey key;
    std::map<Timestamp, Value> points;
  };
  std::mutex mu_;
  std::deque<Series> series_;
  std::map<std::string, SeriesId> by_canon_;
  std::map<std::string, uint32_t> uids_[3];
};

// Collects a streamed body.
class StringSink final : public ChunkSink {
 public:
  bool Write(std::string&& chunk) override {
    body += chunk;
    ++writes;
    return true;
  }
  std::string body;
  int writes = 0;
};

}  // namespace sundial::query::testing
