#include "responder_impl.h"

#include <cassert>

namespace sundial::http {

ResponderImpl::~ResponderImpl() {
  HttpConnection::Op op;
  op.seq = seq_;
  switch (state_.load()) {
    case kNone:
      op.kind = HttpConnection::Op::Kind::kSend;
      op.reply.emplace(Reply::Error(500, "The request was dropped without a reply"));
      break;
    case kStreaming:
      op.kind = HttpConnection::Op::Kind::kAbort;
      break;
    default:
      return;
  }
  conn_->Submit(std::move(op));
}

void ResponderImpl::Send(Reply reply) {
  if (!Transition(kNone, kDone)) {
    assert(false && "Responder answered twice");
    return;
  }
  // On the I/O thread (a handler that answered at once) the reply is
  // applied here, without a trip through the queue.
  conn_->SubmitSend(seq_, std::move(reply));
}

void ResponderImpl::StartChunked(Reply head) {
  if (!Transition(kNone, kStreaming)) {
    assert(false && "Responder answered twice");
    return;
  }
  HttpConnection::Op op;
  op.kind = HttpConnection::Op::Kind::kStartChunked;
  op.seq = seq_;
  op.reply.emplace(std::move(head));
  conn_->Submit(std::move(op));
}

void ResponderImpl::WriteChunk(std::string data, std::function<void(bool ok)> on_written) {
  if (state_.load() != kStreaming) {
    assert(false && "WriteChunk outside a streamed reply");
    return;
  }
  if (data.empty() && !on_written) return;
  HttpConnection::Op op;
  op.kind = HttpConnection::Op::Kind::kChunk;
  op.seq = seq_;
  op.data = std::move(data);
  op.on_written = std::move(on_written);
  conn_->Submit(std::move(op));
}

void ResponderImpl::Finish() {
  if (!Transition(kStreaming, kDone)) {
    assert(false && "Finish outside a streamed reply");
    return;
  }
  HttpConnection::Op op;
  op.kind = HttpConnection::Op::Kind::kFinish;
  op.seq = seq_;
  conn_->Submit(std::move(op));
}

}  // namespace sundial::http
