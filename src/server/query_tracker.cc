#include "query_tracker.h"

#include <atomic>
#include <memory>
#include <utility>

#include "sundial/common/json_escape.h"
#include "sundial/http/reply.h"
#include "sundial/query/json_format.h"

namespace sundial::server {
namespace {

// Forwards everything to the connection's responder and tells the tracker
// when the reply is complete: just before its last bytes are handed on, so
// that a client that asks /api/stats/query once it has the answer finds the
// query completed, not running.
class TrackingResponder final : public http::Responder {
 public:
  TrackingResponder(QueryTracker* tracker, uint64_t id, http::ResponderPtr inner)
      : tracker_(tracker), id_(id), inner_(std::move(inner)) {}
  ~TrackingResponder() override { Done(500); }

  void Send(http::Reply reply) override {
    Done(reply.status);
    inner_->Send(std::move(reply));
  }
  void StartChunked(http::Reply head) override {
    status_ = head.status;
    inner_->StartChunked(std::move(head));
  }
  void WriteChunk(std::string data, std::function<void(bool ok)> on_written) override {
    inner_->WriteChunk(std::move(data), std::move(on_written));
  }
  void Finish() override {
    Done(status_);
    inner_->Finish();
  }
  bool cancelled() const override { return inner_->cancelled(); }

 private:
  void Done(int status) {
    if (!done_.exchange(true)) tracker_->Complete(id_, status);
  }

  QueryTracker* const tracker_;
  const uint64_t id_;
  const http::ResponderPtr inner_;
  int status_ = 200;
  std::atomic<bool> done_{false};
};

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

http::ResponderPtr QueryTracker::Track(const http::Request& req, http::ResponderPtr inner) {
  Entry e;
  const std::string& text = req.body.empty() ? req.target : req.body;
  e.query = text.substr(0, kMaxQueryText);
  e.remote = std::string(req.headers.Get("X-Forwarded-For"));
  if (e.remote.empty()) e.remote = std::string(req.headers.Get("X-Real-IP"));
  e.remote = e.remote.substr(0, 256);
  if (const std::string* id = req.headers.Find(http::kRequestIdHeader);
      id != nullptr && http::IsEchoableRequestId(*id)) {
    e.request_id = *id;
  }
  e.start_ms = WallMs();
  e.start = std::chrono::steady_clock::now();
  uint64_t id;
  {
    MutexLock l(&mu_);
    id = next_id_++;
    running_.emplace(id, std::move(e));
  }
  return std::make_shared<TrackingResponder>(this, id, std::move(inner));
}

void QueryTracker::Complete(uint64_t id, int status) {
  const auto now = std::chrono::steady_clock::now();
  MutexLock l(&mu_);
  auto it = running_.find(id);
  if (it == running_.end()) return;
  Entry e = std::move(it->second);
  running_.erase(it);
  e.elapsed_ms = std::chrono::duration<double, std::milli>(now - e.start).count();
  e.status = status;
  ++executed_;
  completed_.push_front(std::move(e));
  if (completed_.size() > kMaxCompleted) completed_.pop_back();
}

void QueryTracker::AppendEntry(const Entry& e, bool running, std::string* out) {
  out->append("{\"query\":");
  AppendJsonString(e.query, out);
  out->append(",\"remote\":");
  if (e.remote.empty()) {
    out->append("null");
  } else {
    AppendJsonString(e.remote, out);
  }
  out->append(",\"user\":null,\"requestId\":");
  if (e.request_id.empty()) {
    out->append("null");
  } else {
    AppendJsonString(e.request_id, out);
  }
  out->append(",\"queryStartTimestamp\":");
  query::AppendInt(e.start_ms, out);
  const double elapsed =
      running ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - e.start)
                    .count()
              : e.elapsed_ms;
  out->append(",\"elapsed\":");
  query::AppendInt(static_cast<int64_t>(elapsed), out);
  if (!running) {
    out->append(",\"httpResponse\":{\"code\":");
    query::AppendInt(e.status, out);
    out->append(",\"reasonPhrase\":");
    AppendJsonString(http::StatusReason(e.status), out);
    out->append("},\"stats\":{\"totalTimeMs\":");
    query::AppendInt(static_cast<int64_t>(elapsed), out);
    out->push_back('}');
  }
  out->push_back('}');
}

std::string QueryTracker::Json() const {
  MutexLock l(&mu_);
  std::string out = "{\"running\":[";
  bool first = true;
  for (auto it = running_.rbegin(); it != running_.rend(); ++it) {
    if (!first) out.push_back(',');
    first = false;
    AppendEntry(it->second, true, &out);
  }
  out.append("],\"completed\":[");
  first = true;
  for (const Entry& e : completed_) {
    if (!first) out.push_back(',');
    first = false;
    AppendEntry(e, false, &out);
  }
  out.append("],\"executed\":");
  query::AppendInt(static_cast<int64_t>(executed_), &out);
  out.push_back('}');
  return out;
}

}  // namespace sundial::server
