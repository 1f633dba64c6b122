#include "storage/series_dict.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

#include "storage/record_log.h"
#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

constexpr char kMagic[] = "SUNDSER1";
constexpr uint8_t kNameRecord = 1;
constexpr uint8_t kSeriesRecord = 2;
constexpr uint8_t kRenameRecord = 3;
constexpr size_t kStackTags = 32;
// New series' records kept for one write to the log (SeriesDict::unwritten_).
constexpr size_t kMaxUnwritten = 64 << 10;

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

// Stable. Insertion sort for the usual few tags; a damaged or hostile
// record may claim millions.
template <typename Pair>
void SortByKey(Pair* pairs, size_t n) {
  if (n > 16) {
    std::stable_sort(pairs, pairs + n,
                     [](const Pair& a, const Pair& b) { return a.first < b.first; });
    return;
  }
  for (size_t i = 1; i < n; ++i) {
    const Pair p = pairs[i];
    size_t j = i;
    for (; j > 0 && pairs[j - 1].first > p.first; --j) pairs[j] = pairs[j - 1];
    pairs[j] = p;
  }
}

}  // namespace

SeriesDict::SeriesDict(Env* env, std::string path, std::function<void(SeriesId)> on_create,
                       uint64_t max_series,
                       std::function<Status(const std::string&)> on_new_records)
    : env_(env), path_(std::move(path)), on_create_(std::move(on_create)),
      max_series_(max_series), on_new_records_(std::move(on_new_records)) {}

Status SeriesDict::Open(std::vector<std::string>* warnings) {
  WriterLock lock(&mu_);
  SUNDIAL_RETURN_IF_ERROR(env_->OpenFile(path_, &file_));
  uint64_t size = 0;
  SUNDIAL_RETURN_IF_ERROR(file_->Size(&size));
  if (size < kLogFileHeaderSize) {
    if (size > 0) warnings->push_back(path_ + ": header torn, starting an empty dictionary");
    const std::string h = LogFileHeader(kMagic);
    SUNDIAL_RETURN_IF_ERROR(file_->Truncate(0));
    SUNDIAL_RETURN_IF_ERROR(file_->Write(0, h.data(), h.size()));
    SUNDIAL_RETURN_IF_ERROR(file_->Sync());
    file_end_ = h.size();
    return Status::OK();
  }
  LogReader reader(file_.get(), size, kMagic);
  Status s = reader.Open();
  bool header_bad = false;
  if (s.IsCorruption()) {
    // The records carry their own CRCs: keep every intact one.
    warnings->push_back(s.ToString() + "; reading the records after it");
    reader.OpenSkippingHeader();
    header_bad = true;
  } else if (!s.ok()) {
    return s;
  }
  uint8_t type;
  std::string_view payload;
  while (reader.Next(&type, &payload)) ApplyRecord(type, payload, warnings);
  SUNDIAL_RETURN_IF_ERROR(reader.status());
  for (const auto& w : reader.skipped()) warnings->push_back(w);
  file_end_ = size;
  if (header_bad) {
    // Best effort (a full disk may refuse): new records need a valid header
    // to be found by the next Open, which still recovers them if not.
    const std::string h = LogFileHeader(kMagic);
    if (!file_->Write(0, h.data(), h.size()).ok()) {
      warnings->push_back(path_ + ": could not rewrite the damaged header");
    }
  }
  if (reader.end_of_valid() < size && !reader.skipped().empty()) {
    // A torn or damaged tail: cut it so new records follow valid ones.
    file_end_ = reader.end_of_valid();
    SUNDIAL_RETURN_IF_ERROR(file_->Truncate(file_end_));
  }
  return Status::OK();
}

SeriesDict::Applied SeriesDict::ApplyRecord(uint8_t type, std::string_view in,
                                            std::vector<std::string>* warnings) {
  if (type == kNameRecord) {
    uint32_t uid = 0;
    std::string_view name;
    if (in.empty() || static_cast<uint8_t>(in[0]) > 2) {
      warnings->push_back(path_ + ": bad name record skipped");
      return Applied::kSkipped;
    }
    const auto kind = static_cast<NameKind>(in[0]);
    in.remove_prefix(1);
    if (!GetVarint32(&in, &uid) || !GetLengthPrefixed(&in, &name) || uid == 0 ||
        name.empty()) {
      warnings->push_back(path_ + ": bad name record skipped");
      return Applied::kSkipped;
    }
    if (names(kind).Name(uid) == name) return Applied::kKnown;
    if (!names(kind).Insert(name, uid)) {
      warnings->push_back(path_ + ": duplicate name record skipped");
      return Applied::kSkipped;
    }
    return Applied::kAdded;
  }
  if (type == kRenameRecord) {
    uint32_t uid = 0;
    std::string_view name;
    if (in.empty() || static_cast<uint8_t>(in[0]) > 2) {
      warnings->push_back(path_ + ": bad rename record skipped");
      return Applied::kSkipped;
    }
    const auto kind = static_cast<NameKind>(in[0]);
    in.remove_prefix(1);
    if (!GetVarint32(&in, &uid) || !GetLengthPrefixed(&in, &name) || name.empty() ||
        !names(kind).Rename(uid, name)) {
      warnings->push_back(path_ + ": bad rename record skipped");
      return Applied::kSkipped;
    }
    return Applied::kAdded;
  }
  if (type != kSeriesRecord) {
    warnings->push_back(path_ + ": unknown record type " + std::to_string(type) + " skipped");
    return Applied::kSkipped;
  }
  uint32_t id = 0, metric = 0, n = 0;
  if (!GetVarint32(&in, &id) || !GetVarint32(&in, &metric) || !GetVarint32(&in, &n) ||
      n > in.size() / 2 || id == kInvalidSeriesId) {
    warnings->push_back(path_ + ": bad series record skipped");
    return Applied::kSkipped;
  }
  std::vector<UidPair> pairs(n);
  bool ok = !names(NameKind::kMetric).Name(metric).empty();
  for (auto& p : pairs) {
    ok = ok && GetVarint32(&in, &p.first) && GetVarint32(&in, &p.second) &&
         !names(NameKind::kTagKey).Name(p.first).empty() &&
         !names(NameKind::kTagValue).Name(p.second).empty();
  }
  if (ok) SortByKey(pairs.data(), n);
  const SeriesId found = ok ? FindKey(metric, pairs.data(), n) : kInvalidSeriesId;
  if (ok && found == id && Exists(id)) return Applied::kKnown;
  if (!ok || Exists(id) || found != kInvalidSeriesId) {
    warnings->push_back(path_ + ": series record " + std::to_string(id) +
                        " refers to unknown names or repeats a series; skipped");
    return Applied::kSkipped;
  }
  AddSeries(id, metric, pairs.data(), n);
  return Applied::kAdded;
}

bool SeriesDict::FindUids(std::string_view metric, const TagRef* tags, size_t num_tags,
                          uint32_t* metric_uid, UidPair* pairs) const {
  *metric_uid = names(NameKind::kMetric).Find(metric);
  if (*metric_uid == 0) return false;
  for (size_t i = 0; i < num_tags; ++i) {
    pairs[i].first = names(NameKind::kTagKey).Find(tags[i].key);
    pairs[i].second = names(NameKind::kTagValue).Find(tags[i].value);
    if (pairs[i].first == 0 || pairs[i].second == 0) return false;
  }
  SortByKey(pairs, num_tags);
  return true;
}

uint64_t SeriesDict::HashKey(uint32_t metric_uid, uint32_t tagset) {
  return Mix(Mix(0, metric_uid), tagset);
}

SeriesId SeriesDict::FindKey(uint32_t metric_uid, const UidPair* pairs, size_t n) const {
  if (table_.empty()) return kInvalidSeriesId;
  const uint32_t tagset = tagsets_.Find(pairs, n);
  if (tagset == TagsetTable::kNone) return kInvalidSeriesId;
  const size_t mask = table_.size() - 1;
  for (size_t i = static_cast<size_t>(HashKey(metric_uid, tagset)) & mask;; i = (i + 1) & mask) {
    const uint32_t slot = table_[i];
    if (slot == 0) return kInvalidSeriesId;
    if (series_metric_[slot - 1] == metric_uid && series_tagset_[slot - 1] == tagset) {
      return slot - 1;
    }
  }
}

void SeriesDict::InsertIntoTable(SeriesId id, uint64_t hash) {
  const size_t mask = table_.size() - 1;
  size_t i = static_cast<size_t>(hash) & mask;
  while (table_[i] != 0) i = (i + 1) & mask;
  table_[i] = id + 1;
}

void SeriesDict::Rehash() {
  std::vector<uint32_t> old;
  old.swap(table_);
  table_.assign(old.empty() ? 1024 : old.size() * 2, 0);
  for (uint32_t slot : old) {
    if (slot == 0) continue;
    InsertIntoTable(slot - 1, HashKey(series_metric_[slot - 1], series_tagset_[slot - 1]));
  }
}

void SeriesDict::AddSeries(SeriesId id, uint32_t metric_uid, const UidPair* pairs, size_t n) {
  const uint32_t tagset = tagsets_.Intern(pairs, n);
  if (id >= series_metric_.size()) {
    series_metric_.resize(id + 1, 0);
    series_tagset_.resize(id + 1, 0);
  }
  series_metric_[id] = metric_uid;
  series_tagset_[id] = tagset;
  if ((table_used_ + 1) * 10 > table_.size() * 7) Rehash();
  InsertIntoTable(id, HashKey(metric_uid, tagset));
  ++table_used_;
  if (metric_uid >= by_metric_.size()) by_metric_.resize(metric_uid + 1);
  by_metric_[metric_uid].push_back(id);
  if (tagset == by_tagset_.size()) {  // a new tag set
    by_tagset_.emplace_back();
    for (size_t i = 0; i < n; ++i) {
      tagsets_with_tag_[(static_cast<uint64_t>(pairs[i].first) << 32) | pairs[i].second]
          .push_back(tagset);
    }
  }
  by_tagset_[tagset].push_back(id);
  if (on_create_) on_create_(id);
  series_count_.fetch_add(1, std::memory_order_relaxed);
  if (id + 1 > id_limit_.load(std::memory_order_relaxed)) {
    id_limit_.store(id + 1, std::memory_order_release);
  }
}

}  // namespace sundial::storage

namespace sundial::storage {

Status SeriesDict::Resolve(std::string_view metric, const TagRef* tags, size_t num_tags,
                           SeriesId* id, bool* created) {
  *created = false;
  UidPair stack_pairs[kStackTags];
  std::vector<UidPair> heap_pairs;
  UidPair* pairs = stack_pairs;
  if (num_tags > kStackTags) {
    heap_pairs.resize(num_tags);
    pairs = heap_pairs.data();
  }
  {
    ReaderLock lock(&mu_);
    uint32_t metric_uid = 0;
    if (FindUids(metric, tags, num_tags, &metric_uid, pairs)) {
      *id = FindKey(metric_uid, pairs, num_tags);
      if (*id != kInvalidSeriesId) return Status::OK();
    }
  }
  WriterLock lock(&mu_);
  uint32_t metric_uid = 0;
  if (FindUids(metric, tags, num_tags, &metric_uid, pairs)) {
    *id = FindKey(metric_uid, pairs, num_tags);
    if (*id != kInvalidSeriesId) return Status::OK();
  }
  SUNDIAL_RETURN_IF_ERROR(CreateLocked(metric, tags, num_tags, id));
  *created = true;
  return Status::OK();
}

Status SeriesDict::CreateLocked(std::string_view metric, const TagRef* tags, size_t num_tags,
                                SeriesId* id) {
  if (metric.empty()) return Status::InvalidArgument("empty metric name");
  struct NewName {
    NameKind kind;
    std::string_view name;
    uint32_t uid;
  };
  std::vector<NewName> fresh;
  uint32_t next[3] = {names(NameKind::kMetric).next_uid(), names(NameKind::kTagKey).next_uid(),
                      names(NameKind::kTagValue).next_uid()};
  std::string rec;      // as the log holds them
  std::string entries;  // as on_new_records gets them (ReplayNewRecords)
  auto add = [&](uint8_t type, std::string_view payload) {
    AppendLogRecord(&rec, type, payload);
    entries.push_back(static_cast<char>(type));
    PutLengthPrefixed(&entries, payload);
  };
  auto assign = [&](NameKind kind, std::string_view name) -> uint32_t {
    mu_.AssertHeld();  // CreateLocked's
    if (const uint32_t uid = names(kind).Find(name)) return uid;
    for (const auto& f : fresh) {
      if (f.kind == kind && f.name == name) return f.uid;
    }
    const uint32_t uid = next[static_cast<int>(kind)]++;
    fresh.push_back({kind, name, uid});
    std::string payload(1, static_cast<char>(kind));
    PutVarint32(&payload, uid);
    PutLengthPrefixed(&payload, name);
    add(kNameRecord, payload);
    return uid;
  };
  const uint32_t metric_uid = assign(NameKind::kMetric, metric);
  std::vector<UidPair> pairs(num_tags);
  for (size_t i = 0; i < num_tags; ++i) {
    if (tags[i].key.empty() || tags[i].value.empty()) {
      return Status::InvalidArgument("empty tag key or value");
    }
    pairs[i] = {assign(NameKind::kTagKey, tags[i].key), assign(NameKind::kTagValue, tags[i].value)};
  }
  SortByKey(pairs.data(), num_tags);
  for (size_t i = 1; i < num_tags; ++i) {
    if (pairs[i].first == pairs[i - 1].first) return Status::InvalidArgument("duplicate tag key");
  }
  const SeriesId new_id = id_limit_.load(std::memory_order_relaxed);
  if (new_id == kInvalidSeriesId) return Status::ResourceExhausted("series ids exhausted");
  if (max_series_ != 0 && series_count() >= max_series_) {
    return Status::ResourceExhausted("too many series: " + std::to_string(series_count()) +
                                     " exist (max_series = " + std::to_string(max_series_) +
                                     "); this one is not created");
  }
  std::string payload;
  PutVarint32(&payload, new_id);
  PutVarint32(&payload, metric_uid);
  PutVarint32(&payload, static_cast<uint32_t>(num_tags));
  for (const auto& p : pairs) {
    PutVarint32(&payload, p.first);
    PutVarint32(&payload, p.second);
  }
  add(kSeriesRecord, payload);
  if (on_new_records_) {
    // The owner's log makes them durable. This one gets them later, with
    // others in one write (Sync() at the latest): a new series now and
    // then costs series.log no block of its own until a checkpoint.
    SUNDIAL_RETURN_IF_ERROR(on_new_records_(entries).WithContext("series dictionary"));
    unwritten_ += rec;
    if (unwritten_.size() >= kMaxUnwritten) (void)AppendLocked(std::string());  // else later
  } else {
    SUNDIAL_RETURN_IF_ERROR(AppendLocked(rec));
  }
  for (const auto& f : fresh) names(f.kind).Insert(f.name, f.uid);
  AddSeries(new_id, metric_uid, pairs.data(), num_tags);
  *id = new_id;
  return Status::OK();
}

Status SeriesDict::Sync() {
  MutexLock sync_lock(&sync_mu_);
  {
    ReaderLock lock(&mu_);
    if (!dirty_ && unwritten_.empty()) return Status::OK();
  }
  {
    WriterLock lock(&mu_);
    if (!unwritten_.empty()) SUNDIAL_RETURN_IF_ERROR(AppendLocked(std::string()));
    dirty_ = false;
  }
  Status s = file_->Sync();
  if (!s.ok()) {
    WriterLock lock(&mu_);
    dirty_ = true;
  }
  return s;
}

bool SeriesDict::Exists(SeriesId id) const {
  return id < series_metric_.size() && series_metric_[id] != 0;
}

void SeriesDict::MetricsOf(const std::vector<SeriesId>& ids,
                           std::vector<uint32_t>* metrics) const {
  metrics->resize(ids.size());
  ReaderLock lock(&mu_);  // only to read the uids: new series wait no longer
  for (size_t i = 0; i < ids.size(); ++i) {
    (*metrics)[i] = Exists(ids[i]) ? series_metric_[ids[i]] : UINT32_MAX;
  }
}

void SeriesDict::SortByMetric(std::vector<SeriesId>* ids) const {
  std::vector<uint32_t> metrics;
  MetricsOf(*ids, &metrics);
  std::vector<std::pair<uint32_t, SeriesId>> keyed;  // (metric uid, id)
  keyed.reserve(ids->size());
  for (size_t i = 0; i < ids->size(); ++i) keyed.emplace_back(metrics[i], (*ids)[i]);
  std::sort(keyed.begin(), keyed.end());
  for (size_t i = 0; i < keyed.size(); ++i) (*ids)[i] = keyed[i].second;
}

std::vector<SeriesId> SeriesDict::SeriesOfMetric(std::string_view metric) const {
  ReaderLock lock(&mu_);
  const uint32_t uid = names(NameKind::kMetric).Find(metric);
  if (uid == 0 || uid >= by_metric_.size()) return {};
  return by_metric_[uid];
}

std::vector<SeriesId> SeriesDict::SeriesWithTag(std::string_view key,
                                                std::string_view value) const {
  ReaderLock lock(&mu_);
  const uint32_t k = names(NameKind::kTagKey).Find(key);
  const uint32_t v = names(NameKind::kTagValue).Find(value);
  if (k == 0 || v == 0) return {};
  auto it = tagsets_with_tag_.find((static_cast<uint64_t>(k) << 32) | v);
  if (it == tagsets_with_tag_.end()) return {};
  if (it->second.size() == 1) return by_tagset_[it->second[0]];
  std::vector<SeriesId> out;
  for (uint32_t tagset : it->second) {
    out.insert(out.end(), by_tagset_[tagset].begin(), by_tagset_[tagset].end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<SeriesId> SeriesDict::SeriesOfMetricWithTag(
    std::string_view metric, std::string_view key, const std::vector<std::string>& values) const {
  std::vector<SeriesId> out;
  ReaderLock lock(&mu_);
  const uint32_t m = names(NameKind::kMetric).Find(metric);
  const uint32_t k = names(NameKind::kTagKey).Find(key);
  if (m == 0 || m >= by_metric_.size() || k == 0) return out;
  std::vector<uint32_t> wanted;  // value uids
  for (const std::string& value : values) {
    if (const uint32_t v = names(NameKind::kTagValue).Find(value)) wanted.push_back(v);
  }
  if (wanted.empty()) return out;
  // The metric's series (ascending) whose tag set has k = one of the values.
  for (SeriesId id : by_metric_[m]) {
    const TagsetTable::View tags = tagsets_.Get(series_tagset_[id]);
    for (uint32_t i = 0; i < tags.size; ++i) {
      const UidPair p = tags[i];
      if (p.first != k) continue;
      if (std::find(wanted.begin(), wanted.end(), p.second) != wanted.end()) out.push_back(id);
      break;
    }
  }
  return out;
}

Status SeriesDict::GetSeriesKey(SeriesId id, SeriesKey* out) const {
  SeriesKeyRef ref;
  SUNDIAL_RETURN_IF_ERROR(GetSeriesKeyRef(id, &ref));
  out->metric_uid = ref.metric_uid;
  out->metric = std::string(ref.metric);
  out->tags.clear();
  out->tags.reserve(ref.tags.size());
  for (const auto& [k, v] : ref.tags) out->tags.emplace_back(std::string(k), std::string(v));
  out->tag_uids = std::move(ref.tag_uids);
  return Status::OK();
}

Status SeriesDict::GetSeriesKeyRef(SeriesId id, SeriesKeyRef* out) const {
  ReaderLock lock(&mu_);
  if (!Exists(id)) return Status::NotFound("unknown series id", std::to_string(id));
  out->metric_uid = series_metric_[id];
  out->metric = names(NameKind::kMetric).Name(out->metric_uid);
  const TagsetTable::View key_tags = tagsets_.Get(series_tagset_[id]);
  // Sorted by tag key name; on the stack for the usual few tags.
  using Tag = std::pair<std::string_view, UidPair>;
  const uint32_t n = key_tags.size;
  Tag small[16];
  std::vector<Tag> large;
  Tag* tags = small;
  if (n > 16) {
    large.resize(n);
    tags = large.data();
  }
  for (uint32_t i = 0; i < n; ++i) {
    const UidPair p = key_tags[i];
    tags[i] = {names(NameKind::kTagKey).Name(p.first), p};
  }
  std::sort(tags, tags + n, [](const Tag& a, const Tag& b) { return a.first < b.first; });
  out->tags.clear();
  out->tag_uids.clear();
  out->tags.reserve(n);
  out->tag_uids.reserve(n);
  for (const Tag* t = tags; t != tags + n; ++t) {
    out->tags.emplace_back(t->first, names(NameKind::kTagValue).Name(t->second.second));
    out->tag_uids.push_back(t->second);
  }
  return Status::OK();
}

Status SeriesDict::LookupUid(NameKind kind, std::string_view name, uint32_t* uid) const {
  if (static_cast<int>(kind) > 2) return Status::InvalidArgument("bad name kind");
  ReaderLock lock(&mu_);
  *uid = names(kind).Find(name);
  if (*uid == 0) return Status::NotFound("unknown name", name);
  return Status::OK();
}

Status SeriesDict::AppendLocked(const std::string& records) {
  const size_t waiting = unwritten_.size();
  unwritten_ += records;  // after what waits: it may hold their names
  Status s = file_->Write(file_end_, unwritten_.data(), unwritten_.size());
  if (!s.ok()) {
    (void)file_->Truncate(file_end_);  // best effort: drop a partial record
    unwritten_.resize(waiting);
    return s.WithContext("series dictionary");
  }
  file_end_ += unwritten_.size();
  unwritten_.clear();
  dirty_ = true;
  return Status::OK();
}

Status SeriesDict::AppendSyncedLocked(uint8_t type, std::string_view payload) {
  std::string rec;
  AppendLogRecord(&rec, type, payload);
  SUNDIAL_RETURN_IF_ERROR(AppendLocked(rec));
  Status s = file_->Sync();
  if (!s.ok()) {
    // Drop this record (best effort); what was written before it stays.
    file_end_ -= rec.size();
    (void)file_->Truncate(file_end_);
    return s.WithContext("series dictionary");
  }
  return Status::OK();
}

bool SeriesDict::ReplayNewRecords(std::string_view in, std::vector<std::string>* warnings) {
  WriterLock lock(&mu_);
  bool ok = true;
  while (!in.empty()) {
    const auto type = static_cast<uint8_t>(in[0]);
    in.remove_prefix(1);
    std::string_view payload;
    if (!GetLengthPrefixed(&in, &payload)) {
      ok = false;
      break;
    }
    // What the log has is known; what it lacks is added and written back.
    const Applied applied = ApplyRecord(type, payload, warnings);
    if (applied == Applied::kAdded) AppendLogRecord(&unwritten_, type, payload);
    if (applied == Applied::kSkipped) warnings->back() += " (a new series' record in the WAL)";
  }
  // Best effort now; Sync() retries before the WAL that holds them goes.
  if (!unwritten_.empty()) (void)AppendLocked(std::string());
  return ok;
}

Status SeriesDict::AssignName(NameKind kind, std::string_view name, uint32_t* uid,
                              bool* created) {
  if (static_cast<int>(kind) > 2) return Status::InvalidArgument("bad name kind");
  if (name.empty()) return Status::InvalidArgument("empty name");
  WriterLock lock(&mu_);
  *created = false;
  *uid = names(kind).Find(name);
  if (*uid != 0) return Status::OK();
  // Names made here belong to no series, so max_series does not bound them
  // through the series; it bounds each kind's names instead.
  if (max_series_ != 0 && names(kind).size() >= max_series_) {
    return Status::ResourceExhausted("too many names: " + std::to_string(names(kind).size()) +
                                     " of this kind exist (max_series = " +
                                     std::to_string(max_series_) + ")");
  }
  const uint32_t fresh = names(kind).next_uid();
  std::string payload(1, static_cast<char>(kind));
  PutVarint32(&payload, fresh);
  PutLengthPrefixed(&payload, name);
  // Assignments are rare and answered to a user: synced before the answer.
  SUNDIAL_RETURN_IF_ERROR(AppendSyncedLocked(kNameRecord, payload));
  names(kind).Insert(name, fresh);
  *uid = fresh;
  *created = true;
  return Status::OK();
}

Status SeriesDict::RenameName(NameKind kind, std::string_view from, std::string_view to) {
  if (static_cast<int>(kind) > 2) return Status::InvalidArgument("bad name kind");
  if (to.empty()) return Status::InvalidArgument("empty name");
  WriterLock lock(&mu_);
  const uint32_t uid = names(kind).Find(from);
  if (uid == 0) return Status::NotFound("unknown name", from);
  if (const uint32_t taken = names(kind).Find(to); taken != 0) {
    return Status::InvalidArgument("name already exists", to);
  }
  std::string payload(1, static_cast<char>(kind));
  PutVarint32(&payload, uid);
  PutLengthPrefixed(&payload, to);
  // One CRC'd record, synced before the answer: after a crash the rename
  // is either wholly there or wholly absent.
  SUNDIAL_RETURN_IF_ERROR(AppendSyncedLocked(kRenameRecord, payload));
  names(kind).Rename(uid, to);
  name_epoch_.fetch_add(1, std::memory_order_release);
  return Status::OK();
}

Status SeriesDict::NameOfUid(NameKind kind, uint32_t uid, std::string* name) const {
  if (static_cast<int>(kind) > 2) return Status::InvalidArgument("bad name kind");
  ReaderLock lock(&mu_);
  const std::string_view n = names(kind).Name(uid);
  if (n.empty()) return Status::NotFound("unknown uid");
  name->assign(n);
  return Status::OK();
}

std::vector<std::string> SeriesDict::SuggestNames(NameKind kind, std::string_view prefix,
                                                  size_t max) const {
  std::vector<std::string> out;
  if (static_cast<int>(kind) > 2) return out;
  ReaderLock lock(&mu_);
  // The `max` smallest matches (all when max is 0), kept in a max-heap while
  // scanning: memory is bounded by max, not by the number of names.
  const size_t keep = max != 0 ? max : SIZE_MAX;
  std::vector<std::string_view> hits;
  names(kind).ForEach([&](std::string_view name, uint32_t) {
    if (name.substr(0, prefix.size()) != prefix) return;
    if (hits.size() == keep && !(name < hits.front())) return;
    hits.push_back(name);
    std::push_heap(hits.begin(), hits.end());
    if (hits.size() > keep) {
      std::pop_heap(hits.begin(), hits.end());
      hits.pop_back();
    }
  });
  std::sort_heap(hits.begin(), hits.end());
  out.reserve(hits.size());
  for (auto h : hits) out.emplace_back(h);
  return out;
}

size_t SeriesDict::MemoryUsage() const {
  ReaderLock lock(&mu_);
  size_t bytes = (series_metric_.capacity() + series_tagset_.capacity() + table_.capacity()) * 4 +
                 tagsets_.MemoryUsage() + unwritten_.capacity();
  for (const auto& n : names_) bytes += n.MemoryUsage();
  for (const auto& v : by_metric_) bytes += v.capacity() * sizeof(SeriesId) + sizeof(v);
  for (const auto& v : by_tagset_) bytes += v.capacity() * sizeof(SeriesId) + sizeof(v);
  for (const auto& kv : tagsets_with_tag_) bytes += kv.second.capacity() * sizeof(uint32_t) + 48;
  return bytes;
}

}  // namespace sundial::storage
