// Relay::Target: one upstream's thread, position and counters.
//
// The thread reads WAL records from the acknowledged position, keeps the
// points of selected metrics as the batch in flight, sends it in chunks of
// batch_points, and moves the position past the batch once every chunk is
// delivered (or rejected). The position is persisted at most every 200 ms
// and at stop; storage keeps WAL segments from the persisted one on.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "encoder.h"
#include "position_file.h"
#include "sender.h"
#include "sundial/common/mutex.h"
#include "sundial/relay/relay.h"

namespace sundial::relay {

class Relay::Target {
 public:
  Target(const TargetSpec& spec, const RelayOptions& options, Env* env, std::string path);
  ~Target();
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;

  // Reads the position file, if any.
  Status Load();
  void Start(storage::Storage* storage);
  void Stop();
  TargetStatus status() const;
  // The persisted position's segment (kNoWalSegmentNeeded before one exists).
  uint64_t needed_segment() const { return needed_.load(std::memory_order_acquire); }

 private:
  using Clock = std::chrono::steady_clock;
  void Run();
  // Reads records into the batch until it holds batch_points selected
  // points or the WAL has no more. False if the position did not move.
  bool FillBatch();
  // Sends the next chunk of the batch. False if it must be retried after a
  // backoff. A chunk refused as too large (413) is split in halves and sent
  // again at once; a single point still too large is skipped as rejected.
  bool SendChunk();
  // Logs a failed attempt: the first of a run (or of another kind) at
  // once, then at most once per kReportFailuresEvery with the count since.
  void ReportFailure(SendOutcome out, const std::string& error);
  // Measures the unsent WAL; drops whole segments beyond the budget.
  void CheckBudget();
  // Counts the selected points from `from` to the end of its segment.
  uint64_t CountSelected(const storage::WalPosition& from);
  void Persist(bool force);
  void UpdateLag();
  // The names of a series for this target, or null if it is not sent.
  const SeriesNames* Names(SeriesId id);
  void Log(LogLevel level, const std::string& msg) const;
  void SetError(const std::string& error);
  // Sleeps unless stopping; false when stopping.
  bool Sleep(std::chrono::milliseconds d);

  const TargetSpec spec_;
  const RelayOptions& options_;
  Env* const env_;
  const std::string path_;
  const uint32_t batch_points_;
  const uint64_t budget_;

  // Thread state.
  storage::Storage* storage_ = nullptr;
  std::unique_ptr<storage::WalReader> reader_;
  std::unique_ptr<Sender> sender_;
  storage::WalPosition acked_;
  storage::WalPosition batch_end_;
  std::vector<storage::SeriesPoint> raw_;
  std::vector<RelayPoint> batch_;
  size_t batch_done_ = 0;
  std::vector<size_t> split_ends_;  // ends of the halves of a too-large chunk, last = next
  std::unordered_map<SeriesId, std::unique_ptr<SeriesNames>> names_;
  std::deque<std::pair<storage::WalPosition, int64_t>> end_samples_;  // (WAL end, wall ms)
  PositionRecord persisted_;
  bool have_position_ = false;
  Clock::time_point last_persist_{};
  Clock::time_point last_budget_{};
  std::chrono::milliseconds backoff_{0};
  uint64_t failures_ = 0;             // failed attempts since the last delivery
  uint64_t failures_unreported_ = 0;  // of which not yet in the log
  Clock::time_point last_failure_report_{};
  SendOutcome last_failure_kind_ = SendOutcome::kRetry;  // of the last report
  uint64_t bytes_read_ = 0, points_read_ = 0;  // for bytes per point

  // Shared with status().
  mutable Mutex mu_;
  CondVar cv_{&mu_};
  bool stop_ GUARDED_BY(mu_) = false;
  std::string last_error_ GUARDED_BY(mu_);
  int64_t last_error_ms_ GUARDED_BY(mu_) = 0;
  storage::WalPosition acked_shared_ GUARDED_BY(mu_);
  std::thread thread_;
  std::atomic<uint64_t> needed_{storage::kNoWalSegmentNeeded};
  std::atomic<uint64_t> sent_{0}, batches_{0}, retries_{0}, dropped_{0}, rejected_{0};
  std::atomic<uint64_t> pending_bytes_{0}, pending_points_{0};
  std::atomic<int64_t> lag_ms_{0};
  std::atomic<bool> connected_{false};
};

}  // namespace sundial::relay
