// HttpConnection: how calls from other threads reach the connection.
//
// Why no strand: a strand serialises handlers that might otherwise run on
// several threads at once. A connection's socket belongs to an io_context
// that exactly one thread runs (its REQUIRES), so its completion handlers
// never overlap and need no strand; the strand only cost a mutex and a
// queue hop per completion, and with it came the type-erased executor.
//
// What the strand also gave, and what this file keeps: responder calls made
// on worker threads are applied on the I/O thread, in the order they were
// made, also relative to calls made on the I/O thread itself. asio's own
// queue does not promise that: with a one-thread io_context, a post from
// the I/O thread waits in a thread-private queue until the running handler
// returns, so a later post from a worker could overtake it (StartChunked
// from a handler, then WriteChunk from a worker, would apply the chunk
// first). So every call but an immediate Send goes into the connection's
// own FIFO (Submit); Drain applies it on the I/O thread. An immediate Send
// (SubmitSend on the I/O thread with nothing queued) is applied at once, as
// the strand's dispatch did: nothing submitted earlier is still waiting, so
// nothing can be overtaken.
#include <unistd.h>

#include <cassert>

#include <asio/post.hpp>

#include "sundial/http/http_connection.h"

namespace sundial::http {

// Runs Drain. Destroyed without running (its io_context was torn down with
// it still queued), it destroys the queued ops instead: they may hold
// responders, which hold the connection, which holds the queue.
class HttpConnection::DrainTask {
 public:
  explicit DrainTask(std::shared_ptr<HttpConnection> conn) : conn_(std::move(conn)) {}
  DrainTask(DrainTask&& other) noexcept = default;  // leaves other.conn_ null
  DrainTask& operator=(DrainTask&&) = delete;
  ~DrainTask() {
    if (conn_ != nullptr) conn_->DropQueue();
  }
  void operator()() {
    const std::shared_ptr<HttpConnection> conn = std::move(conn_);
    conn->Drain();
  }

 private:
  std::shared_ptr<HttpConnection> conn_;
};

HttpConnection::Socket HttpConnection::AdoptSocket(asio::ip::tcp::socket socket) {
  const asio::any_io_executor& any = socket.get_executor();
  const Executor* own = any.target<Executor>();
  // REQUIRES (the constructor's): the socket belongs to an io_context.
  assert(own != nullptr && "HttpConnection needs an io_context socket");
  Socket out(own != nullptr
                 ? *own
                 : static_cast<asio::io_context&>(asio::query(any, asio::execution::context))
                       .get_executor());
  std::error_code ec;
  const asio::ip::tcp::endpoint local = socket.local_endpoint(ec);
  if (ec || !socket.is_open()) return out;  // stays closed: the first read fails
  // release() also unregisters the descriptor from the reactor, so assign()
  // can register it again (the same reactor: the same io_context).
  const Socket::native_handle_type fd = socket.release(ec);
  if (ec) return out;
  out.assign(local.protocol(), fd, ec);
  if (ec) ::close(fd);  // out stays closed
  return out;
}

void HttpConnection::SubmitSend(uint64_t seq, Reply reply) {
  if (ex_.running_in_this_thread() && queued_.load(std::memory_order_acquire) == 0) {
    OnSend(seq, std::move(reply));
    return;
  }
  Op op;
  op.kind = Op::Kind::kSend;
  op.seq = seq;
  op.reply.emplace(std::move(reply));
  Submit(std::move(op));
}

void HttpConnection::Submit(Op op) {
  bool post = false;
  {
    MutexLock l(&queue_mu_);
    queue_.push_back(std::move(op));
    queued_.fetch_add(1, std::memory_order_release);
    if (!drain_posted_) {
      drain_posted_ = true;
      post = true;
    }
  }
  if (post) asio::post(ex_, DrainTask(shared_from_this()));
}

void HttpConnection::DropQueue() {
  std::vector<Op> dropped;
  {
    MutexLock l(&queue_mu_);
    dropped.swap(queue_);
    drain_posted_ = false;
  }
  queued_.fetch_sub(dropped.size(), std::memory_order_release);
  // dropped is destroyed here, outside the lock: a responder it releases
  // may Submit again.
}

void HttpConnection::Drain() {
  for (;;) {
    {
      MutexLock l(&queue_mu_);
      if (queue_.empty()) {
        drain_posted_ = false;
        return;
      }
      draining_.swap(queue_);
    }
    // Calls made while applying (e.g. a chunk's on_written asking for the
    // next one) go to queue_, behind this batch.
    for (Op& op : draining_) {
      Apply(&op);
      queued_.fetch_sub(1, std::memory_order_release);
    }
    draining_.clear();
  }
}

void HttpConnection::Apply(Op* op) {
  switch (op->kind) {
    case Op::Kind::kSend:
      OnSend(op->seq, std::move(*op->reply));
      return;
    case Op::Kind::kStartChunked:
      OnStartChunked(op->seq, std::move(*op->reply));
      return;
    case Op::Kind::kChunk:
      OnChunk(op->seq, std::move(op->data), std::move(op->on_written));
      return;
    case Op::Kind::kFinish:
      OnFinish(op->seq, /*abort=*/false);
      return;
    case Op::Kind::kAbort:
      OnFinish(op->seq, /*abort=*/true);
      return;
    case Op::Kind::kStop:
      OnStop();
      return;
  }
}

void HttpConnection::OnStop() {
  // Server shutdown: read no more requests, answer those in flight, then
  // close (at once if there are none).
  stopping_ = true;
  read_done_ = true;
  pending_.clear();
  if (slots_.empty()) {
    Close();
  } else {
    DoWrite();
  }
}

}  // namespace sundial::http
