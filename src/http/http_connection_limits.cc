// HttpConnection: the bounds on what one client can hold (see the header):
// receive deadline, output cap, write timeout, idle timeout, and the idle
// mark the connection manager evicts by.
//
// Cost on the hot path: a request that arrives whole in one read never
// touches the timer; the write timeout is checked by the timer's periodic
// wake from a counter of write events, so writes read no clock for it.
#include "sundial/http/http_connection.h"

namespace sundial::http {

using Clock = net::IdleTimer::Clock;

size_t HttpConnection::Unsent() const {
  size_t n = writing_.size() - written_;
  for (const Slot& s : slots_) n += s.out.size();
  return n;
}

size_t HttpConnection::UnsentThrough(size_t i) const {
  size_t n = writing_.size() - written_;
  for (size_t k = 0; k <= i && k < slots_.size(); ++k) n += slots_[k].out.size();
  return n;
}

void HttpConnection::RunParkedCallbacks(bool ok) {
  // By index: a callback may add slots (it never removes one).
  size_t ahead = writing_.size() - written_;
  for (size_t i = 0; i < slots_.size(); ++i) {
    ahead += slots_[i].out.size();
    while (!slots_[i].parked.empty() && (!ok || ahead <= options_.max_unsent)) {
      std::function<void(bool)> cb = std::move(slots_[i].parked.front());
      slots_[i].parked.pop_front();
      cb(ok && !closed_);
      if (ok && closed_) return;  // Close() ran the rest with false
    }
  }
}

void HttpConnection::UpdateIdle() {
  if (slots_.empty() && !write_in_flight_ && pending_.empty() && !parser_.in_message() &&
      !closed_) {
    MarkIdle();
  }
}

Clock::time_point HttpConnection::RequestDue() const {
  // Each body byte buys 1/body_min_rate s on top of request_timeout.
  Clock::time_point due = request_start_ + options_.request_timeout;
  if (options_.body_min_rate > 0) {
    due += std::chrono::milliseconds(parser_.body_bytes() * 1000 / options_.body_min_rate);
  }
  return due;
}

bool HttpConnection::OnTimer(Clock::time_point now, bool idle) {
  if (closed_) return true;
  if (write_in_flight_ && options_.write_timeout.count() > 0) {
    if (write_events_ != write_events_seen_) {
      write_events_seen_ = write_events_;
      write_stalled_since_ = now;
    } else if (now >= write_stalled_since_ + options_.write_timeout) {
      Close();  // took nothing for write_timeout
      return true;
    }
    idle_.WakeBy(write_stalled_since_ + options_.write_timeout);
  }
  if (request_timing_ && !read_done_ && parser_.in_message() && !reading_) {
    // Reading paused by the server (pipelined requests or output at their
    // limits): the client is not late; its time starts again on resume.
    request_start_ = now;
  } else if (request_timing_ && !read_done_ && parser_.in_message()) {
    const Clock::time_point due = RequestDue();
    if (now >= due) {
      AnswerTimeout();
      return true;
    }
    idle_.WakeBy(due);
  }
  if (!idle) return false;
  // Idle means no traffic; a reply still being computed keeps it open.
  if (!slots_.empty() || lingering_) return false;
  Close();
  return true;
}

void HttpConnection::AnswerTimeout() {
  request_timing_ = false;
  read_done_ = true;
  pending_.clear();
  if (!slots_.empty() || write_in_flight_) {
    Close();  // the client is not taking replies either: no 408
    return;
  }
  Slot slot;
  slot.seq = next_seq_++;
  slot.close_after = true;
  const uint64_t seq = slot.seq;
  slots_.push_back(std::move(slot));
  Reply reply = Reply::Error(408, "Request not received in time");
  reply.close = true;
  OnSend(seq, std::move(reply));
}

}  // namespace sundial::http
