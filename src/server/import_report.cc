#include "import_report.h"

#include <cinttypes>
#include <cstdio>

namespace sundial::server {

namespace {

double Seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

std::string Mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return buf;
}

}  // namespace

ImportReport::ImportReport(uint64_t max_errors, bool progress)
    : max_errors_(max_errors), progress_(progress) {}

void ImportReport::ClearProgress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
  drawn_ = false;
}

void ImportReport::Reject(std::string_view source, uint64_t line, std::string_view reason) {
  if (rejected_++ < max_errors_) {
    ClearProgress();
    std::fprintf(stderr, "%.*s:%" PRIu64 ": %.*s\n", static_cast<int>(source.size()),
                 source.data(), line, static_cast<int>(reason.size()), reason.data());
  } else if (rejected_ == max_errors_ + 1) {
    ClearProgress();
    std::fprintf(stderr, "(more rejected lines are only counted)\n");
  }
}

void ImportReport::Progress(std::string_view label, uint64_t done_bytes, uint64_t total_bytes) {
  if (!progress_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(500)) return;
  last_draw_ = now;
  const double s = Seconds(now - start_);
  const double rate = s > 0 ? static_cast<double>(points_) / s : 0;
  std::string eta;
  if (total_bytes > 0 && done_bytes > 0 && done_bytes <= total_bytes) {
    const double left = s * static_cast<double>(total_bytes - done_bytes) /
                        static_cast<double>(done_bytes);
    eta = ", ETA " + std::to_string(static_cast<int64_t>(left)) + " s";
  }
  std::fprintf(stderr, "\r\033[K%.*s: %" PRIu64 " points, %.0f points/s, %s%s%s",
               static_cast<int>(label.size()), label.data(), points_, rate,
               Mib(done_bytes).c_str(), total_bytes > 0 ? (" of " + Mib(total_bytes)).c_str() : "",
               eta.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void ImportReport::Summary() {
  ClearProgress();
  const double s = Seconds(std::chrono::steady_clock::now() - start_);
  std::fprintf(stderr, "imported %" PRIu64 " points, rejected %" PRIu64 " lines in %.2f s (%.0f points/s)\n",
               points_, rejected_, s, s > 0 ? static_cast<double>(points_) / s : 0.0);
}

}  // namespace sundial::server
