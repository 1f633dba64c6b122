// Series selection helpers shared by the query engine and the exporter:
// tag filters, name checks and TSUID resolution.
#include "series_match.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <string>

#include "sundial/query/query_engine.h"

namespace sundial::query {

using storage::NameKind;
using storage::SeriesKeyRef;

const std::string_view* TagValue(const SeriesKeyRef& key, std::string_view tagk) {
  for (const auto& kv : key.tags) {
    if (kv.first == tagk) return &kv.second;
  }
  return nullptr;
}

bool PassesFilters(const SubQuery& q, const SeriesKeyRef& key) {
  for (const TagFilter& f : q.filters) {
    const std::string_view* v = TagValue(key, f.tagk());
    if (v == nullptr || !f.Match(*v)) return false;
  }
  if (q.explicit_tags) {
    std::set<std::string_view> want;
    for (const TagFilter& f : q.filters) want.insert(f.tagk());
    if (want.size() != key.tags.size()) return false;
    for (const auto& kv : key.tags) {
      if (want.count(kv.first) == 0) return false;
    }
  }
  return true;
}

// Validates names the way OpenTSDB resolves UIDs.
Status CheckNames(storage::Storage* st, const SubQuery& q) {
  uint32_t uid = 0;
  for (const TagFilter& f : q.filters) {
    if (!st->LookupUid(NameKind::kTagKey, f.tagk(), &uid).ok()) return NoSuchName("tagk", f.tagk());
    if (f.type() != FilterType::kLiteralOr) continue;
    for (const std::string& lit : f.literals()) {
      if (!st->LookupUid(NameKind::kTagValue, lit, &uid).ok()) return NoSuchName("tagv", lit);
    }
  }
  return Status::OK();
}

Status ResolveTsuids(storage::Storage* st, const SubQuery& q, QueryBudget* budget,
                     std::string* metric, std::vector<SeriesId>* ids) {
  const std::string& first = q.tsuids.front();
  uint32_t want = 0;
  auto r = std::from_chars(first.data(), first.data() + std::min<size_t>(6, first.size()), want, 16);
  if (first.size() < 6 || r.ec != std::errc() || r.ptr != first.data() + 6) {
    return Status::InvalidArgument("Invalid TSUID: " + first);
  }
  for (const std::string& name : st->SuggestNames(NameKind::kMetric, "", 0)) {
    uint32_t uid = 0;
    if (st->LookupUid(NameKind::kMetric, name, &uid).ok() && uid == want) *metric = name;
    if (!budget->Tick()) return budget->status();
  }
  if (metric->empty()) return NoSuchName("metrics", first.substr(0, 6));
  std::set<std::string> wanted(q.tsuids.begin(), q.tsuids.end());
  for (SeriesId id : st->SeriesOfMetric(*metric)) {
    SeriesKeyRef key;
    if (st->GetSeriesKeyRef(id, &key).ok() && wanted.count(TsuidOf(key))) ids->push_back(id);
    if (!budget->Tick()) return budget->status();
  }
  return Status::OK();
}

}  // namespace sundial::query
