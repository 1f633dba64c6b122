// ResponderSink: a query::ChunkSink over an http::Responder, shared by the
// streamed endpoints (/api/query, /api/export).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "worker_pool.h"
#include "sundial/common/mutex.h"
#include "sundial/http/responder.h"
#include "sundial/http/reply.h"
#include "sundial/query/query_engine.h"

namespace sundial::server {

// ChunkSink over a Responder. Holds back the first piece so that a small
// result goes out as one plain reply; keeps at most one piece in flight.
//
// The flow-control state is shared with the on_written callbacks (which run
// on the I/O thread, possibly after this sink is gone if the server stops),
// hence the shared_ptr. Waits are bounded: a peer that stops reading for
// kStallLimit ends the query.
class ResponderSink final : public query::ChunkSink {
 public:
  // content_type "" keeps the JSON content type.
  ResponderSink(http::ResponderPtr r, WorkerPool* workers, std::string content_type = {})
      : r_(std::move(r)),
        workers_(workers),
        content_type_(std::move(content_type)),
        flow_(std::make_shared<Flow>()) {}

  bool Write(std::string&& chunk) override {
    if (r_->cancelled()) return false;
    if (!started_ && !have_first_) {
      first_ = std::move(chunk);
      have_first_ = true;
      return true;
    }
    if (!started_) {
      r_->StartChunked(Head(std::move(first_)));
      started_ = true;
    }
    if (!WaitIdle()) return false;
    {
      MutexLock g(&flow_->mu);
      flow_->in_flight = true;
    }
    std::shared_ptr<Flow> flow = flow_;
    r_->WriteChunk(std::move(chunk), [flow](bool ok) {
      MutexLock g(&flow->mu);
      flow->in_flight = false;
      flow->ok = flow->ok && ok;
      flow->cv.SignalAll();
    });
    return true;
  }

  // Completes the reply after a successful query.
  void Finish() {
    if (!started_) {
      r_->Send(Head(std::move(first_)));
    } else {
      r_->Finish();
    }
  }
  bool started() const { return started_; }

 private:
  static constexpr std::chrono::seconds kStallLimit{60};
  static constexpr std::chrono::milliseconds kSlowClient{50};

  struct Flow {
    Mutex mu;
    CondVar cv{&mu};
    bool in_flight GUARDED_BY(mu) = false;  // a piece is on its way to the socket
    bool ok GUARDED_BY(mu) = true;          // every piece so far was written
  };

  // Waits until the previous piece was written. False if the connection
  // is gone or stalled. A client that has not taken the piece after
  // kSlowClient is slow or not reading: from then on the wait is marked
  // in the worker pool, which may add a thread so that this client does
  // not hold up the other queries.
  bool WaitIdle() {
    const auto start = std::chrono::steady_clock::now();
    MutexLock l(&flow_->mu);
    while (flow_->in_flight && std::chrono::steady_clock::now() - start < kSlowClient) {
      if (r_->cancelled()) return false;
      flow_->cv.WaitFor(std::chrono::milliseconds(10));
    }
    if (!flow_->in_flight) return flow_->ok;
    WorkerPool::WaitScope waiting(workers_);
    while (flow_->in_flight) {
      if (r_->cancelled() || std::chrono::steady_clock::now() - start > kStallLimit) return false;
      flow_->cv.WaitFor(std::chrono::milliseconds(100));
    }
    return flow_->ok;
  }

  http::Reply Head(std::string body) const {
    http::Reply reply = http::Reply::Json(std::move(body));
    if (!content_type_.empty()) reply.content_type = content_type_;
    return reply;
  }

  http::ResponderPtr r_;
  WorkerPool* const workers_;
  const std::string content_type_;
  std::shared_ptr<Flow> flow_;
  bool started_ = false;
  bool have_first_ = false;
  std::string first_;
};

}  // namespace sundial::server
