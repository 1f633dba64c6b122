// ImportReport: the bookkeeping shared by `sundiald import` of files and by
// migration from another server.
//
// ImportReport prints each rejected line as "<source>:<line>: <reason>" on
// stderr up to a cap (then only counts them), a progress line on stderr
// when it is a terminal (points/s, bytes of total, ETA), and a final
// summary line.
//
// Thread-safety: one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sundial::server {

class ImportReport {
 public:
  ImportReport(uint64_t max_errors, bool progress);

  void Reject(std::string_view source, uint64_t line, std::string_view reason);
  void AddPoints(uint64_t n) { points_ += n; }
  // Redraws the progress line at most every 0.5 s (only when enabled).
  // total_bytes 0 = unknown (no ETA).
  void Progress(std::string_view label, uint64_t done_bytes, uint64_t total_bytes);
  // Prints "imported N points, rejected R lines in S s (P points/s)".
  void Summary();

  uint64_t points() const { return points_; }
  uint64_t rejected() const { return rejected_; }

 private:
  void ClearProgress();

  const uint64_t max_errors_;
  const bool progress_;
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
  uint64_t points_ = 0;
  uint64_t rejected_ = 0;
};

}  // namespace sundial::server
