// BatchSender: hands put lines to one or more PutTargets in batches of about
// kBatchBytes, one thread per target, and reports what they rejected.
//
// Why several targets: a server reads each telnet connection on one I/O
// thread, so one connection cannot use more than one of its cores. Lines
// are spread over the targets by series (a hash of the metric and the tag
// text as written), so the points of one series keep their order and a
// repeated timestamp ends with the value written last in the file (unless
// the file spells the same series with its tags in different orders).
// While the targets work, the caller parses the next lines; each target has
// at most kQueueDepth batches waiting, which bounds memory.
//
// Thread-safety: Add(), Flush() and Finish() from one thread.
#pragma once

#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "import_report.h"
#include "import_target.h"
#include "sundial/common/mutex.h"
#include "sundial/common/status.h"

namespace sundial::server {

class BatchSender {
 public:
  static constexpr size_t kBatchBytes = 1 << 20;
  static constexpr size_t kQueueDepth = 2;

  // REQUIRES: targets not empty. report is borrowed.
  BatchSender(std::vector<std::unique_ptr<PutTarget>> targets, ImportReport* report);
  ~BatchSender();
  BatchSender(const BatchSender&) = delete;
  BatchSender& operator=(const BatchSender&) = delete;

  // Queues one put line (without "\n") read at source:line. An error is
  // the first failure of a target; the import should stop.
  Status Add(std::string_view put_line, std::string_view source, uint64_t line);
  // Returns once every line queued so far is stored or reported rejected.
  Status Flush();
  // Flush(), then stops the threads and finishes every target.
  Status Finish();

 private:
  struct Job {
    PutBatch batch;
    std::vector<uint64_t> lines;
    std::string source;
  };
  struct Done {
    Job job;
    std::vector<Rejection> rejected;
    Status status;
  };
  struct Lane {
    std::unique_ptr<PutTarget> target;
    Job filling;                // owned by the caller's thread
    std::deque<Job> queue;      // guarded by mu_
    bool busy = false;          // guarded by mu_
    std::thread thread;
  };

  void Work(Lane* lane);
  Status Enqueue(Lane* lane);
  // Reports finished jobs; returns the first error seen so far.
  Status Report();

  ImportReport* const report_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  Mutex mu_;
  CondVar cv_{&mu_};
  std::deque<Done> done_ GUARDED_BY(mu_);
  bool stop_ GUARDED_BY(mu_) = false;
  bool failed_ GUARDED_BY(mu_) = false;  // a Send() failed: send nothing more
  Status error_;  // caller's thread only
};

}  // namespace sundial::server
