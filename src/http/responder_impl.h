// ResponderImpl: the Responder of one request on one HttpConnection.
//
// Every call is handed to the connection's I/O thread (HttpConnection::
// Submit), so handlers may answer from any thread; calls are applied in the
// order they were made.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "sundial/http/http_connection.h"
#include "sundial/http/responder.h"

namespace sundial::http {

class ResponderImpl : public Responder {
 public:
  ResponderImpl(std::shared_ptr<HttpConnection> conn, uint64_t seq)
      : conn_(std::move(conn)), seq_(seq) {}
  ~ResponderImpl() override;

  void Send(Reply reply) override;
  void StartChunked(Reply head) override;
  void WriteChunk(std::string data, std::function<void(bool ok)> on_written) override;
  void Finish() override;
  bool cancelled() const override { return conn_->cancelled_.load(std::memory_order_relaxed); }

 private:
  enum State : int { kNone, kStreaming, kDone };
  bool Transition(State from, State to) {
    int expected = from;
    return state_.compare_exchange_strong(expected, to);
  }

  const std::shared_ptr<HttpConnection> conn_;
  const uint64_t seq_;
  std::atomic<int> state_{kNone};
};

}  // namespace sundial::http
