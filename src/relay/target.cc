#include "target.h"
#include "sundial/common/thread_name.h"

#include <algorithm>

namespace sundial::relay {
namespace {

using std::chrono::milliseconds;

constexpr milliseconds kIdlePoll{50};
constexpr milliseconds kPersistEvery{200};
constexpr milliseconds kBudgetEvery{250};
constexpr milliseconds kFirstBackoff{100};
// While an upstream keeps failing, the log repeats the reason this often.
constexpr milliseconds kReportFailuresEvery{60000};
constexpr size_t kMaxCachedNames = 1u << 20;
constexpr size_t kMaxEndSamples = 4096;

int64_t WallMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Relay::Target::Target(const TargetSpec& spec, const RelayOptions& options, Env* env,
                      std::string path)
    : spec_(spec),
      options_(options),
      env_(env),
      path_(std::move(path)),
      batch_points_(spec.batch_points != 0 ? spec.batch_points : options.batch_points),
      budget_(spec.max_pending_bytes != 0 ? spec.max_pending_bytes : options.max_pending_bytes) {}

Relay::Target::~Target() { Stop(); }

Status Relay::Target::Load() {
  bool found = false;
  Status s = ReadPositionFile(env_, path_, &persisted_, &found);
  if (!s.ok()) {
    // A damaged position file: resend from the oldest WAL kept rather than
    // lose anything (at least once).
    Log(LogLevel::kWarn, "relay " + spec_.display + ": " + s.ToString() +
                             "; resending from the oldest WAL segment kept");
    persisted_ = PositionRecord{};
    found = true;
  }
  have_position_ = found;
  if (found) {
    acked_ = persisted_.position;
    sent_.store(persisted_.points_sent);
    dropped_.store(persisted_.points_dropped);
    needed_.store(acked_.segment, std::memory_order_release);
  }
  return Status::OK();
}

void Relay::Target::Start(storage::Storage* storage) {
  storage_ = storage;
  thread_ = std::thread([this] {
    SetThreadName("sd-relay");
    Run();
  });
}

void Relay::Target::Stop() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  if (thread_.joinable()) thread_.join();
}

bool Relay::Target::Sleep(milliseconds d) {
  MutexLock lock(&mu_);
  const auto until = Clock::now() + d;
  while (!stop_ && Clock::now() < until) cv_.WaitUntil(until);
  return !stop_;
}

void Relay::Target::Log(LogLevel level, const std::string& msg) const {
  if (options_.log) options_.log(level, msg);
}

void Relay::Target::SetError(const std::string& error) {
  MutexLock lock(&mu_);
  last_error_ = error;
  last_error_ms_ = WallMs();
}

void Relay::Target::Run() {
  Status s = storage_->NewWalReader(acked_, &reader_);
  if (!s.ok()) {
    SetError(s.ToString());
    Log(LogLevel::kError, "relay " + spec_.display + ": " + s.ToString());
    return;
  }
  if (!have_position_) {
    acked_ = reader_->End();  // a new target forwards what arrives from now on
    reader_->Seek(acked_);
    have_position_ = true;
    Persist(true);
  }
  batch_end_ = acked_;
  sender_ = std::make_unique<Sender>(spec_, spec_.timeout.count() != 0 ? spec_.timeout
                                                                        : options_.timeout);
  Log(LogLevel::kInfo, "relay " + spec_.display + ": forwarding from WAL segment " +
                           std::to_string(acked_.segment) + " offset " +
                           std::to_string(acked_.offset));
  for (;;) {
    {
      MutexLock lock(&mu_);
      if (stop_) break;
    }
    const Clock::time_point now = Clock::now();
    if (now - last_budget_ >= kBudgetEvery) {
      last_budget_ = now;
      CheckBudget();
      UpdateLag();
    }
    if (batch_done_ == batch_.size() && batch_end_ == acked_) {
      if (!FillBatch()) {  // caught up with the WAL
        pending_bytes_.store(0, std::memory_order_relaxed);
        Persist(false);
        if (!Sleep(kIdlePoll)) break;
        continue;
      }
      if (pending_bytes_.load(std::memory_order_relaxed) == 0) {  // until CheckBudget measures
        pending_bytes_.store(batch_end_.segment == acked_.segment
                                 ? batch_end_.offset - std::min(batch_end_.offset, acked_.offset)
                                 : 1,
                             std::memory_order_relaxed);
      }
    }
    if (batch_done_ == batch_.size()) {  // everything in it delivered or skipped
      acked_ = batch_end_;
      batch_.clear();
      batch_done_ = 0;
      Persist(false);
      continue;
    }
    if (!SendChunk()) {
      retries_.fetch_add(1, std::memory_order_relaxed);
      backoff_ = backoff_.count() == 0 ? kFirstBackoff : std::min(backoff_ * 2, options_.max_backoff);
      if (!Sleep(backoff_)) break;
    }
  }
  Persist(true);
}

const SeriesNames* Relay::Target::Names(SeriesId id) {
  auto it = names_.find(id);
  if (it != names_.end()) return it->second.get();
  if (names_.size() >= kMaxCachedNames) names_.clear();
  std::unique_ptr<SeriesNames> n;
  storage::SeriesKeyRef key;
  if (storage_->GetSeriesKeyRef(id, &key).ok() && MetricSelected(spec_, key.metric)) {
    n = std::make_unique<SeriesNames>();
    n->metric = std::string(key.metric);
    for (const auto& [k, v] : key.tags) n->tags.emplace_back(std::string(k), std::string(v));
    for (const auto& extra : spec_.add_tags) {
      auto same = std::find_if(n->tags.begin(), n->tags.end(),
                               [&](const auto& kv) { return kv.first == extra.first; });
      if (same != n->tags.end()) {
        same->second = extra.second;
      } else {
        n->tags.push_back(extra);
      }
    }
    std::sort(n->tags.begin(), n->tags.end());
  }
  return names_.emplace(id, std::move(n)).first->second.get();
}

bool Relay::Target::FillBatch() {
  batch_.clear();
  batch_done_ = 0;
  while (batch_.size() < batch_points_) {
    raw_.clear();
    const storage::WalPosition before = reader_->position();
    if (!reader_->Next(&raw_)) break;
    const storage::WalPosition after = reader_->position();
    if (after.segment == before.segment && after.offset > before.offset) {
      bytes_read_ += after.offset - before.offset;
      points_read_ += raw_.size();
    }
    for (const storage::SeriesPoint& p : raw_) {
      if (const SeriesNames* n = Names(p.series)) batch_.push_back(RelayPoint{n, p.t, p.v});
    }
  }
  for (const std::string& w : reader_->TakeWarnings()) {
    Log(LogLevel::kWarn, "relay " + spec_.display + ": " + w);
  }
  batch_end_ = reader_->position();
  return !(batch_end_ == acked_);
}

bool Relay::Target::SendChunk() {
  // A chunk is batch_points of the batch, or the first half of a chunk the
  // upstream refused as too large (split_ends_ holds the ends still to do).
  const size_t end = split_ends_.empty()
                         ? batch_done_ + std::min<size_t>(batch_points_, batch_.size() - batch_done_)
                         : split_ends_.back();
  const size_t n = end - batch_done_;
  size_t left_out = 0;
  std::string error;
  SendOutcome out = sender_->Send(&batch_[batch_done_], n, &left_out, &error);
  connected_.store(sender_->connected(), std::memory_order_relaxed);
  if (out == SendOutcome::kTooLarge && n > 1) {
    SetError(error);
    retries_.fetch_add(1, std::memory_order_relaxed);
    if (split_ends_.empty()) {
      split_ends_.push_back(end);
      Log(LogLevel::kWarn, "relay " + spec_.display + ": upstream refused " + std::to_string(n) +
                               " points as too large (" + error + "); sending them in halves");
    }
    split_ends_.push_back(batch_done_ + n / 2);
    return true;  // at once, smaller: nothing is wrong with the upstream
  }
  if (out == SendOutcome::kRetry || out == SendOutcome::kTargetFault) {
    SetError(error);
    ReportFailure(out, error);
    return false;
  }
  if (out == SendOutcome::kTooLarge) {  // one point alone is too large: bad data
    out = SendOutcome::kRejected;
    error = "a single point is too large: " + error;
  }
  if (out == SendOutcome::kRejected) {
    SetError(error);
    rejected_.fetch_add(n, std::memory_order_relaxed);
    Log(LogLevel::kError, "relay " + spec_.display + ": upstream rejected a batch of " +
                              std::to_string(n) + " points (" + error + "); skipped");
  } else {
    if (!error.empty()) SetError(error);
    if (sender_->refused() > 0) {
      Log(LogLevel::kError, "relay " + spec_.display + ": " + error + "; skipped");
    }
    sent_.fetch_add(n - left_out, std::memory_order_relaxed);
    rejected_.fetch_add(left_out, std::memory_order_relaxed);
    batches_.fetch_add(1, std::memory_order_relaxed);
  }
  if (failures_ != 0) {
    Log(LogLevel::kInfo, "relay " + spec_.display + ": delivering again after " +
                             std::to_string(failures_) + " failed attempts");
  }
  failures_ = 0;
  failures_unreported_ = 0;
  backoff_ = milliseconds(0);
  batch_done_ = end;
  if (!split_ends_.empty() && split_ends_.back() == end) split_ends_.pop_back();
  return true;
}

void Relay::Target::ReportFailure(SendOutcome out, const std::string& error) {
  ++failures_;
  ++failures_unreported_;
  const Clock::time_point now = Clock::now();
  if (failures_ != 1 && out == last_failure_kind_ &&
      now - last_failure_report_ < kReportFailuresEvery) {
    return;
  }
  last_failure_report_ = now;
  last_failure_kind_ = out;
  std::string msg = "relay " + spec_.display + ": ";
  if (out == SendOutcome::kTargetFault) {
    msg += "upstream refused the request (" + error +
           "): check the target's URL, credentials and any proxy; the data is kept";
  } else {
    msg += error;
  }
  if (failures_ > 1) {
    msg += "; " + std::to_string(failures_unreported_) + " failed attempts since the last report";
  }
  failures_unreported_ = 0;
  Log(out == SendOutcome::kTargetFault ? LogLevel::kError : LogLevel::kWarn,
      msg + "; retrying with backoff");
}

void Relay::Target::Persist(bool force) {
  const Clock::time_point now = Clock::now();
  if (!force && now - last_persist_ < kPersistEvery) return;
  {
    MutexLock lock(&mu_);
    acked_shared_ = acked_;
  }
  PositionRecord r{acked_, sent_.load(), dropped_.load()};
  if (r.position == persisted_.position && r.points_sent == persisted_.points_sent &&
      r.points_dropped == persisted_.points_dropped && needed_.load() != storage::kNoWalSegmentNeeded) {
    return;
  }
  last_persist_ = now;
  const Status s = WritePositionFile(env_, path_, r);
  if (!s.ok()) {
    SetError("persist position: " + s.ToString());
    return;  // the older position stays in force: more resent, nothing lost
  }
  persisted_ = r;
  needed_.store(r.position.segment, std::memory_order_release);
}

void Relay::Target::UpdateLag() {
  const storage::WalPosition end = reader_->End();
  const int64_t now = WallMs();
  if (end_samples_.empty() || !(end_samples_.back().first == end)) {
    end_samples_.emplace_back(end, now);
  }
  if (end_samples_.size() > kMaxEndSamples) {  // thin out: keep every other one
    for (size_t i = 1; i < end_samples_.size(); ++i) end_samples_.erase(end_samples_.begin() + i);
  }
  while (!end_samples_.empty() && !(acked_ < end_samples_.front().first)) end_samples_.pop_front();
  lag_ms_.store(end_samples_.empty() ? 0 : now - end_samples_.front().second,
                std::memory_order_relaxed);
  const uint64_t bpp = points_read_ > 0 ? std::max<uint64_t>(1, bytes_read_ / points_read_) : 8;
  pending_points_.store(pending_bytes_.load() / bpp, std::memory_order_relaxed);
}

uint64_t Relay::Target::CountSelected(const storage::WalPosition& from) {
  std::unique_ptr<storage::WalReader> r;
  if (!storage_->NewWalReader(from, &r).ok()) return 0;
  uint64_t n = 0;
  std::vector<storage::SeriesPoint> pts;
  for (;;) {
    pts.clear();
    if (!r->Next(&pts) || r->position().segment != from.segment) break;
    for (const storage::SeriesPoint& p : pts) n += Names(p.series) != nullptr ? 1 : 0;
  }
  return n;
}

void Relay::Target::CheckBudget() {
  std::vector<storage::WalSegmentInfo> segments;
  if (!reader_->Segments(&segments).ok()) return;
  const storage::WalPosition end = reader_->End();
  uint64_t pending = 0;
  for (const storage::WalSegmentInfo& s : segments) {
    if (s.segment < acked_.segment || s.segment > end.segment) continue;
    const uint64_t size = s.segment == end.segment ? end.offset : s.size;
    pending += s.segment == acked_.segment ? size - std::min(size, acked_.offset) : size;
  }
  pending_bytes_.store(pending, std::memory_order_relaxed);
  while (pending > budget_ && acked_.segment < end.segment) {
    auto next = std::find_if(segments.begin(), segments.end(), [&](const auto& s) {
      return s.segment > acked_.segment;
    });
    if (next == segments.end()) break;
    auto cur = std::find_if(segments.begin(), segments.end(), [&](const auto& s) {
      return s.segment == acked_.segment;
    });
    const uint64_t size = cur == segments.end() ? 0 : cur->size;
    uint64_t lost = CountSelected(acked_);
    // Chunks of the batch in flight that were delivered are not lost.
    lost -= std::min<uint64_t>(lost, batch_done_);
    dropped_.fetch_add(lost, std::memory_order_relaxed);
    pending -= std::min(pending, size - std::min(size, acked_.offset));
    Log(LogLevel::kError, "relay " + spec_.display + ": unsent WAL is over the disk budget of " +
                              std::to_string(budget_) + " bytes: dropped " +
                              std::to_string(lost) + " unsent points (WAL segment " +
                              std::to_string(acked_.segment) + ")");
    SetError("disk budget full: dropped " + std::to_string(lost) + " points");
    acked_ = storage::WalPosition{next->segment, 0};
    batch_.clear();
    batch_done_ = 0;
    split_ends_.clear();
    batch_end_ = acked_;
    reader_->Seek(acked_);
    Persist(true);
  }
  pending_bytes_.store(pending, std::memory_order_relaxed);
}

TargetStatus Relay::Target::status() const {
  TargetStatus st;
  st.url = spec_.display;
  st.id = spec_.id;
  st.protocol = ProtocolName(spec_.protocol);
  st.points_sent = sent_.load();
  st.batches_sent = batches_.load();
  st.retries = retries_.load();
  st.points_dropped = dropped_.load();
  st.points_rejected = rejected_.load();
  st.pending_bytes = pending_bytes_.load();
  st.pending_points = st.pending_bytes == 0 ? 0 : std::max<uint64_t>(1, pending_points_.load());
  st.lag_seconds = st.pending_bytes == 0 ? 0 : static_cast<double>(lag_ms_.load()) / 1000.0;
  st.connected = connected_.load();
  MutexLock lock(&mu_);
  st.last_error = last_error_;
  st.last_error_ms = last_error_ms_;
  st.position = acked_shared_;
  return st;
}

}  // namespace sundial::relay
