// RollupStore's build passes: new closed hours, dirty hours and days,
// the startup check and retention.
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "rollup/file_util.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/common/thread_name.h"

namespace sundial::rollup {

// One day file to rewrite.
struct RollupStore::DayWork {
  Timestamp day = 0;
  Timestamp all_from = 0, all_to = 0;  // hours recomputed for every series
  std::map<SeriesId, std::vector<Timestamp>> extra;  // more hours, ascending
  bool ignore_old = false;                           // recompute [all_from, all_to) only
  // Marks this work answers, with their sequence numbers when taken.
  std::vector<std::pair<std::pair<SeriesId, Timestamp>, uint64_t>> pairs;
  uint64_t day_seq = 0;  // 0: no whole-day mark
};

namespace {

// Computes the stats of `hours` (ascending) of series id from raw points.
Status ComputeHours(storage::Storage* storage, SeriesId id, const std::vector<Timestamp>& hours,
                    std::vector<HourStats>* out) {
  out->clear();
  if (hours.empty()) return Status::OK();
  auto it = storage->NewIterator(id, hours.front(), hours.back() + kHourMs - 1);
  size_t pos = 0;
  HourStats cur;
  while (it->Next()) {
    const Timestamp h = HourOf(it->t());
    while (pos < hours.size() && hours[pos] < h) ++pos;
    if (pos == hours.size()) break;
    if (hours[pos] != h) continue;
    if (cur.count > 0 && cur.hour != h) {
      out->push_back(cur);
      cur = HourStats();
    }
    cur.hour = h;
    cur.Add(it->t(), it->v().AsDouble());
  }
  if (cur.count > 0) out->push_back(cur);
  return it->status();
}

// Union of [from, to) and extra, ascending.
std::vector<Timestamp> HoursToCompute(Timestamp from, Timestamp to,
                                      const std::vector<Timestamp>* extra) {
  std::vector<Timestamp> hours;
  for (Timestamp h = from; h < to; h += kHourMs) hours.push_back(h);
  if (extra != nullptr) {
    hours.insert(hours.end(), extra->begin(), extra->end());
    std::sort(hours.begin(), hours.end());
    hours.erase(std::unique(hours.begin(), hours.end()), hours.end());
  }
  return hours;
}

void LowerThreadPriority() {
  // Building must not take CPU from ingest: nice the builder thread only.
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 10);
}

}  // namespace

void RollupStore::Start(storage::Storage* storage) {
  storage_ = storage;
  builder_ = std::thread([this] {
    SetThreadName("sd-rollup");
    BuilderLoop();
  });
}

void RollupStore::Stop() {
  {
    MutexLock lock(&stop_mu_);
    stop_ = true;
  }
  stopping_.store(true);
  stop_cv_.SignalAll();
  if (builder_.joinable()) builder_.join();
}

void RollupStore::BuilderLoop() {
  LowerThreadPriority();
  for (;;) {
    const Status s = Pass(storage_);
    if (!s.ok()) {
      MutexLock lock(&mu_);
      ++stats_.errors;  // retried on the next pass
    }
    MutexLock lock(&stop_mu_);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.build_interval_ms);
    while (!stop_ && std::chrono::steady_clock::now() < deadline) stop_cv_.WaitUntil(deadline);
    if (stop_) return;
  }
}

Status RollupStore::BuildNow(storage::Storage* storage) { return Pass(storage); }

Status RollupStore::Pass(storage::Storage* storage) {
  MutexLock run(&run_mu_);
  if (!checked_files_) {
    CheckFiles(storage);
    checked_files_ = true;
  }
  const int64_t now = NowMs();
  ApplyRetention();
  Status s = BuildNewHours(storage, BatchEnd(HourOf(now - options_.grace_ms)));
  if (s.ok()) s = BuildDirty(storage);
  MutexLock lock(&mu_);
  ++stats_.passes;
  return s;
}

Timestamp RollupStore::BatchEnd(Timestamp closed_end) const {
  const Timestamp batch = std::min(std::max(HourOf(options_.batch_ms), kHourMs), kDayMs);
  const Timestamp day = DayOf(closed_end);
  return day + (closed_end - day) / batch * batch;
}

void RollupStore::CheckFiles(storage::Storage* storage) {
  Timestamp built = 0;
  {
    MutexLock lock(&mu_);
    built = built_mark_;
  }
  std::vector<std::pair<Timestamp, Timestamp>> ranges = storage->PartitionRanges();
  std::set<Timestamp> days;
  for (const auto& r : ranges) {
    for (Timestamp d = DayOf(r.first); d < r.second && d < built; d += kDayMs) days.insert(d);
  }
  for (Timestamp d : days) {
    std::unique_ptr<DayFileReader> reader;
    if (DayFileReader::Open(env_, options_.dir + "/" + DayFileName(d), d, &reader).ok()) continue;
    MutexLock lock(&mu_);
    if (dirty_days_.count(d) == 0) MarkDayLocked(d);
  }
}

Status RollupStore::BuildNewHours(storage::Storage* storage, Timestamp closed_end) {
  for (;;) {
    if (stopping_.load()) return Status::OK();
    Timestamp a = 0;
    {
      MutexLock lock(&mu_);
      a = built_mark_;
    }
    if (a >= closed_end) return Status::OK();
    if (a == kMinTimestamp && storage->PartitionRanges().empty()) return Status::OK();
    // Points below b are late from now on; only then look at the data, so
    // that a point racing with this pass is either read or reported.
    const Timestamp b = std::min(closed_end, a == kMinTimestamp ? closed_end : DayOf(a) + kDayMs);
    if (late_mark_.load() < b) late_mark_.store(b);
    const auto ranges = storage->PartitionRanges();
    Timestamp next = closed_end;  // the next hour with possible data
    for (const auto& r : ranges) {
      if (r.second > a) {
        next = std::max(a, HourOf(r.first));
        break;
      }
    }
    if (a == kMinTimestamp || next > a) {
      // Nothing stored in [a, next): skip it. STATE records the skip when
      // the pass ends here (if there is a STATE: see below); otherwise the
      // next step's WriteState does (a crash before it only makes the next
      // start skip again).
      const Timestamp to = std::min(next, closed_end);
      if (to >= closed_end && HasState()) SUNDIAL_RETURN_IF_ERROR(WriteState(to));
      MutexLock lock(&mu_);
      built_mark_ = to;
      stats_.watermark = to;
      continue;
    }
    DayWork work;
    work.day = DayOf(a);
    work.all_from = a;
    work.all_to = b;
    {
      MutexLock lock(&mu_);
      for (auto it = dirty_pairs_.lower_bound({0, kMinTimestamp}); it != dirty_pairs_.end(); ++it) {
        if (DayOf(it->first.second) != work.day || it->first.second >= a) continue;
        work.extra[it->first.first].push_back(it->first.second);
        work.pairs.emplace_back(it->first, it->second);
        ForgetMarksLocked(it->first.first);
      }
    }
    // Every point applied before the new segment is read below or was
    // reported late before it; STATE records the segment only after the
    // marks of those reports are durable (see the top of rollup_store.h).
    uint64_t segment = 0;
    const bool rotated = storage->RotateWal(&segment).ok();
    bool wrote = false;
    SUNDIAL_RETURN_IF_ERROR(RebuildDay(storage, work, &wrote));
    if (rotated) {
      SUNDIAL_RETURN_IF_ERROR(SyncLate());
      wal_seen_.store(segment);
    }
    // Until something is rolled up there is no STATE: a fresh server's
    // first passes, over the empty hours before its first point, then cost
    // the disk nothing, and a restart before that only builds those empty
    // hours again (finding no STATE, it takes no replayed point as late).
    if (wrote || HasState()) SUNDIAL_RETURN_IF_ERROR(WriteState(b));
    MutexLock lock(&mu_);
    built_mark_ = b;
    stats_.watermark = b;
  }
}

Status RollupStore::BuildDirty(storage::Storage* storage) {
  std::map<Timestamp, DayWork> works;
  {
    MutexLock lock(&mu_);
    for (const auto& kv : dirty_days_) {
      if (kv.first >= built_mark_) continue;  // built later anyway
      DayWork& w = works[kv.first];
      w.day = kv.first;
      w.all_from = kv.first;
      w.all_to = std::min(kv.first + kDayMs, built_mark_);
      w.ignore_old = true;
      w.day_seq = kv.second;
    }
    if (!works.empty()) ForgetMarksLocked(kInvalidSeriesId);
    for (const auto& kv : dirty_pairs_) {
      const Timestamp hour = kv.first.second;
      if (hour >= built_mark_) continue;
      DayWork& w = works[DayOf(hour)];
      w.day = DayOf(hour);
      w.pairs.emplace_back(kv.first, kv.second);
      if (w.day_seq == 0) w.extra[kv.first.first].push_back(hour);
      ForgetMarksLocked(kv.first.first);
    }
  }
  for (auto& kv : works) {
    if (stopping_.load()) return Status::OK();
    SUNDIAL_RETURN_IF_ERROR(RebuildDay(storage, kv.second));
  }
  return Status::OK();
}

Status RollupStore::RebuildDay(storage::Storage* storage, const DayWork& work_in, bool* wrote) {
  DayWork work = work_in;
  const std::string path = options_.dir + "/" + DayFileName(work.day);
  std::unique_ptr<DayFileReader> old;
  if (!work.ignore_old) {
    Status s = DayFileReader::Open(env_, path, work.day, &old);
    if (!s.ok() && !s.IsNotFound()) {
      // Damaged: recompute every built hour of the day.
      old.reset();
      work.all_from = work.day;
      work.all_to = std::max(work.all_to, std::min(work.day + kDayMs, late_mark_.load()));
    }
  }
  // Series to visit: all of them when a range is recomputed for everyone.
  std::vector<SeriesId> ids;
  if (work.all_from < work.all_to) {
    const uint64_t n = storage->stats().series_count;
    for (uint64_t i = 0; i < n; ++i) ids.push_back(static_cast<SeriesId>(i));
  }
  if (old) ids.insert(ids.end(), old->ids().begin(), old->ids().end());
  for (const auto& kv : work.extra) ids.push_back(kv.first);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());

  DayFileWriter writer;
  bool opened = false;  // the writer is opened for the first series kept
  auto open_writer = [&]() -> Status {
    if (opened) return Status::OK();
    opened = true;
    return writer.Open(env_, path + ".tmp", work.day);
  };
  std::vector<HourStats> kept, fresh, merged;
  uint64_t built = 0;
  for (SeriesId id : ids) {
    if (stopping_.load()) return Status::Unavailable("rollup: stopping");
    auto ex = work.extra.find(id);
    std::vector<Timestamp> hours =
        HoursToCompute(work.all_from, work.all_to, ex == work.extra.end() ? nullptr : &ex->second);
    kept.clear();
    if (old && !old->Read(id, &kept).ok()) {
      kept.clear();  // a damaged block: recompute the series' built hours
      hours = HoursToCompute(work.day, std::min(work.day + kDayMs, late_mark_.load()), &hours);
    }
    SUNDIAL_RETURN_IF_ERROR(ComputeHours(storage, id, hours, &fresh));
    built += fresh.size();
    merged.clear();
    for (const HourStats& h : kept) {
      if (!std::binary_search(hours.begin(), hours.end(), h.hour)) merged.push_back(h);
    }
    merged.insert(merged.end(), fresh.begin(), fresh.end());
    std::sort(merged.begin(), merged.end(),
              [](const HourStats& x, const HourStats& y) { return x.hour < y.hour; });
    if (!merged.empty()) {
      SUNDIAL_RETURN_IF_ERROR(open_writer());
      SUNDIAL_RETURN_IF_ERROR(writer.Add(id, merged));
    }
  }
  // A day with nothing rolled up and no file to replace gets no file
  // (queries answer such days from raw data): an empty one would cost the
  // disk a write, two fsyncs and a rename, on every fresh start.
  const bool write = opened || env_->FileExists(path);
  if (wrote != nullptr) *wrote = write;
  uint64_t bytes = 0;
  std::unique_ptr<DayFileReader> fresh_reader;
  Status open;
  if (write) {
    SUNDIAL_RETURN_IF_ERROR(storage->SyncNewSeries());  // before a file names them
    SUNDIAL_RETURN_IF_ERROR(open_writer());
    SUNDIAL_RETURN_IF_ERROR(writer.Finish());
    bytes = writer.bytes();
    SUNDIAL_RETURN_IF_ERROR(RenameDurable(env_, path + ".tmp", path));
    open = DayFileReader::Open(env_, path, work.day, &fresh_reader);
  }
  MutexLock lock(&mu_);
  readers_.erase(work.day);
  if (write) {
    // Marks stay until the new file is what readers get.
    SUNDIAL_RETURN_IF_ERROR(open);
    readers_[work.day] = {std::move(fresh_reader), ++use_clock_};
  }
  bool cleared = false;
  for (const auto& p : work.pairs) {
    auto it = dirty_pairs_.find(p.first);
    if (it != dirty_pairs_.end() && it->second == p.second) {
      dirty_pairs_.erase(it);
      cleared = true;
    }
  }
  if (work.day_seq != 0) {
    auto it = dirty_days_.find(work.day);
    if (it != dirty_days_.end() && it->second == work.day_seq) {
      dirty_days_.erase(it);
      cleared = true;
    }
  }
  stats_.hours_built += built;
  stats_.files_written += write ? 1 : 0;
  stats_.bytes_written += bytes;
  if (cleared) return RewriteDirtyLogLocked();
  return Status::OK();
}

void RollupStore::ApplyRetention() {
  std::vector<std::pair<std::string, uint64_t>> files;
  if (!ListDir(env_, options_.dir, &files).ok()) return;
  const Timestamp cutoff = options_.retention_ms > 0 ? NowMs() - options_.retention_ms : kMinTimestamp;
  uint64_t bytes = 0;
  for (const auto& f : files) {
    Timestamp day = 0;
    if (!ParseDayFileName(f.first, &day)) continue;
    if (day + kDayMs <= cutoff) {
      (void)RemoveFileIfExists(env_, options_.dir + "/" + f.first);
      MutexLock lock(&mu_);
      readers_.erase(day);
      dirty_days_.erase(day);
      continue;
    }
    bytes += f.second;
  }
  MutexLock lock(&mu_);
  stats_.disk_bytes = bytes;
}

}  // namespace sundial::rollup
