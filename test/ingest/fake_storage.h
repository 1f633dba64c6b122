// FakeStorage: an in-memory Storage for the ingest tests. It interns series
// by canonical key (metric + sorted tags), records every appended point and
// can be told to fail.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sundial/storage/storage.h"

namespace sundial::ingest {

class FakeStorage : public storage::Storage {
 public:
  Status ResolveSeries(std::string_view metric, const storage::TagRef* tags, size_t n,
                       SeriesId* id) override {
    ++resolve_calls;
    if (!fail_resolve.empty()) return Status::IOError(fail_resolve);
    std::vector<std::pair<std::string, std::string>> kv;
    for (size_t i = 0; i < n; ++i) kv.emplace_back(std::string(tags[i].key), std::string(tags[i].value));
    std::sort(kv.begin(), kv.end());
    std::string key(metric);
    for (const auto& [k, v] : kv) key += " " + k + "=" + v;
    auto it = ids_.find(key);
    if (it == ids_.end()) {
      it = ids_.emplace(key, static_cast<SeriesId>(keys.size())).first;
      keys.push_back(key);
      metrics.insert(std::string(metric));
    }
    *id = it->second;
    return Status::OK();
  }
  Status Append(const storage::SeriesPoint* points, size_t n) override {
    ++append_calls;
    if (!fail_append.empty()) return Status::IOError(fail_append);
    appended.insert(appended.end(), points, points + n);
    return Status::OK();
  }
  Status Sync() override { return Status::OK(); }
  std::unique_ptr<SampleIterator> NewIterator(SeriesId, Timestamp, Timestamp) override {
    return nullptr;
  }
  Status LastPoint(SeriesId, Sample*) override { return Status::NotFound("no"); }
  std::vector<SeriesId> SeriesOfMetric(std::string_view) override { return {}; }
  std::vector<SeriesId> SeriesWithTag(std::string_view, std::string_view) override { return {}; }
  Status GetSeriesKey(SeriesId, storage::SeriesKey*) override { return Status::NotFound("no"); }
  Status GetSeriesKeyRef(SeriesId, storage::SeriesKeyRef*) override {
    return Status::NotFound("no");
  }
  Status LookupUid(storage::NameKind kind, std::string_view name, uint32_t* uid) override {
    if (kind == storage::NameKind::kMetric && metrics.count(std::string(name))) {
      *uid = 1;
      return Status::OK();
    }
    return Status::NotFound(name);
  }
  std::vector<std::string> SuggestNames(storage::NameKind, std::string_view, size_t) override {
    return {};
  }
  storage::StorageStats stats() override { return {}; }

  // The canonical key of an appended point's series.
  const std::string& KeyOf(const storage::SeriesPoint& p) const { return keys[p.series]; }

  std::vector<std::string> keys;  // by SeriesId
  std::set<std::string> metrics;
  std::vector<storage::SeriesPoint> appended;
  std::string fail_append;   // non-empty: Append fails with this message
  std::string fail_resolve;  // non-empty: ResolveSeries fails
  int append_calls = 0;
  int resolve_calls = 0;

 private:
  std::map<std::string, SeriesId> ids_;
};

}  // namespace sundial::ingest
