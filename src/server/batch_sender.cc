#include "batch_sender.h"
#include "sundial/common/thread_name.h"

#include <functional>
#include <utility>

namespace sundial::server {

namespace {

// A hash of the series of "put <metric> <ts> <value> <tags...>": the metric
// and the tag text.
size_t SeriesHash(std::string_view line) {
  size_t p = line.find(' ');                        // after "put"
  const size_t m_end = line.find(' ', p + 1);       // after the metric
  if (p == std::string_view::npos || m_end == std::string_view::npos) {
    return std::hash<std::string_view>()(line);
  }
  const std::string_view metric = line.substr(p + 1, m_end - p - 1);
  p = line.find(' ', m_end + 1);                    // after the timestamp
  p = p == std::string_view::npos ? p : line.find(' ', p + 1);  // after the value
  const std::string_view tags = p == std::string_view::npos ? "" : line.substr(p);
  return std::hash<std::string_view>()(metric) * 31 + std::hash<std::string_view>()(tags);
}

}  // namespace

BatchSender::BatchSender(std::vector<std::unique_ptr<PutTarget>> targets, ImportReport* report)
    : report_(report) {
  for (auto& t : targets) {
    auto lane = std::make_unique<Lane>();
    lane->target = std::move(t);
    lanes_.push_back(std::move(lane));
  }
  for (auto& lane : lanes_) {
    Lane* l = lane.get();
    l->thread = std::thread([this, l] {
      SetThreadName("sd-send");
      Work(l);
    });
  }
}

BatchSender::~BatchSender() {
  {
    MutexLock l(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  for (auto& lane : lanes_) {
    if (lane->thread.joinable()) lane->thread.join();
  }
}

void BatchSender::Work(Lane* lane) {
  for (;;) {
    Done d;
    {
      MutexLock l(&mu_);
      while (lane->queue.empty() && !stop_) cv_.Wait();
      if (lane->queue.empty()) return;
      d.job = std::move(lane->queue.front());
      lane->queue.pop_front();
      lane->busy = true;
      cv_.SignalAll();
      // After a target failed the import stops: the batches still queued
      // are not sent (the first failure is what the caller reports).
      if (failed_) d.status = Status::Busy("not sent: the import stopped");
    }
    if (d.status.ok()) d.status = lane->target->Send(d.job.batch, &d.rejected);
    MutexLock l(&mu_);
    lane->busy = false;
    if (!d.status.ok()) failed_ = true;
    done_.push_back(std::move(d));
    cv_.SignalAll();
  }
}

Status BatchSender::Report() {
  std::deque<Done> done;
  {
    MutexLock l(&mu_);
    done.swap(done_);
  }
  for (const Done& d : done) {
    if (!d.status.ok()) {
      if (error_.ok()) error_ = d.status;
      continue;
    }
    for (const Rejection& r : d.rejected) report_->Reject(d.job.source, d.job.lines[r.index], r.reason);
    report_->AddPoints(d.job.batch.size() - d.rejected.size());
  }
  return error_;
}

Status BatchSender::Enqueue(Lane* lane) {
  {
    MutexLock l(&mu_);
    while (lane->queue.size() >= kQueueDepth) cv_.Wait();
    lane->queue.push_back(std::move(lane->filling));
    cv_.SignalAll();
  }
  lane->filling = Job();
  return Report();
}

Status BatchSender::Add(std::string_view put_line, std::string_view source, uint64_t line) {
  Lane* lane = lanes_[lanes_.size() == 1 ? 0 : SeriesHash(put_line) % lanes_.size()].get();
  Job& job = lane->filling;
  if (job.batch.empty()) job.source.assign(source);
  job.batch.Add(put_line);
  job.lines.push_back(line);
  return job.batch.bytes() >= kBatchBytes ? Enqueue(lane) : Status::OK();
}

Status BatchSender::Flush() {
  for (auto& lane : lanes_) {
    if (!lane->filling.batch.empty()) SUNDIAL_RETURN_IF_ERROR(Enqueue(lane.get()));
  }
  for (;;) {
    {
      MutexLock l(&mu_);
      bool idle = done_.empty();
      for (auto& lane : lanes_) idle = idle && lane->queue.empty() && !lane->busy;
      if (idle) break;
      if (done_.empty()) cv_.Wait();
    }
    SUNDIAL_RETURN_IF_ERROR(Report());
  }
  return Report();
}

Status BatchSender::Finish() {
  Status s = Flush();
  {
    MutexLock l(&mu_);
    stop_ = true;
    cv_.SignalAll();
  }
  for (auto& lane : lanes_) {
    if (lane->thread.joinable()) lane->thread.join();
  }
  for (auto& lane : lanes_) {
    const Status f = lane->target->Finish();
    if (s.ok()) s = f;
  }
  return s;
}

}  // namespace sundial::server
