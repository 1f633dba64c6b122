#include "responder_impl.h"

#include <cassert>

#include <asio/dispatch.hpp>
#include <asio/post.hpp>

namespace sundial::http {

ResponderImpl::~ResponderImpl() {
  auto conn = conn_;
  const uint64_t seq = seq_;
  switch (state_.load()) {
    case kNone:
      asio::post(conn->strand_, [conn, seq] {
        conn->OnSend(seq, Reply::Error(500, "The request was dropped without a reply"));
      });
      break;
    case kStreaming:
      asio::post(conn->strand_, [conn, seq] { conn->OnFinish(seq, /*abort=*/true); });
      break;
    default:
      break;
  }
}

void ResponderImpl::Send(Reply reply) {
  if (!Transition(kNone, kDone)) {
    assert(false && "Responder answered twice");
    return;
  }
  // On the connection's own strand (a handler that answered at once) the
  // reply is applied here, without a trip through the scheduler.
  asio::dispatch(conn_->strand_, [conn = conn_, seq = seq_, r = std::move(reply)]() mutable {
    conn->OnSend(seq, std::move(r));
  });
}

void ResponderImpl::StartChunked(Reply head) {
  if (!Transition(kNone, kStreaming)) {
    assert(false && "Responder answered twice");
    return;
  }
  asio::post(conn_->strand_, [conn = conn_, seq = seq_, h = std::move(head)]() mutable {
    conn->OnStartChunked(seq, std::move(h));
  });
}

void ResponderImpl::WriteChunk(std::string data, std::function<void(bool ok)> on_written) {
  if (state_.load() != kStreaming) {
    assert(false && "WriteChunk outside a streamed reply");
    return;
  }
  if (data.empty() && !on_written) return;
  asio::post(conn_->strand_, [conn = conn_, seq = seq_, d = std::move(data),
                              cb = std::move(on_written)]() mutable {
    conn->OnChunk(seq, std::move(d), std::move(cb));
  });
}

void ResponderImpl::Finish() {
  if (!Transition(kStreaming, kDone)) {
    assert(false && "Finish outside a streamed reply");
    return;
  }
  asio::post(conn_->strand_, [conn = conn_, seq = seq_] { conn->OnFinish(seq, false); });
}

}  // namespace sundial::http
