#include "sundial/net/line_connection.h"

#include <asio/post.hpp>

namespace sundial::net {

LineConnection::LineConnection(asio::ip::tcp::socket socket,
                               std::unique_ptr<LineHandler> handler,
                               const LineOptions& options, ConnectionManager* manager)
    : socket_(std::move(socket)),
      handler_(std::move(handler)),
      options_(options),
      manager_(manager),
      framer_(options.max_line_length, options.read_size, options.max_read_size),
      reply_(options.max_pending_reply),
      idle_(socket_.get_executor()) {}

LineConnection::~LineConnection() { manager_->Remove(this); }

void LineConnection::Start(std::string_view first_bytes) {
  auto self = shared_from_this();
  std::error_code ec;
  const asio::ip::address peer = socket_.remote_endpoint(ec).address();
  if (manager_->Add(self, peer, /*enforce_limit=*/false) != ConnectionManager::AddResult::kAdded) {
    Close();  // the server is stopping
    return;
  }
  // No periodic wake: a pause arms the write timeout itself (Dispatch).
  idle_.Start(options_.idle_timeout, std::chrono::milliseconds(0), self,
              [this](IdleTimer::Clock::time_point now, bool idle) { return OnTimer(now, idle); });
  if (framer_.Append(first_bytes) == LineFramer::Result::kLineTooLong) {
    Close();
    return;
  }
  if (Dispatch()) DoRead();
}

void LineConnection::Stop() {
  auto self = shared_from_this();
  asio::post(socket_.get_executor(), [self] { self->Close(); });
}

bool LineConnection::OnTimer(IdleTimer::Clock::time_point now, bool idle) {
  if (closed_) return true;
  if (paused_ && write_in_flight_ && options_.write_timeout.count() > 0) {
    const IdleTimer::Clock::time_point due = write_progress_ + options_.write_timeout;
    if (now >= due) {
      Close();
      return true;
    }
    idle_.WakeBy(due);
  }
  if (idle) Close();
  return idle;
}

void LineConnection::DoRead() {
  auto self = shared_from_this();
  socket_.async_read_some(asio::buffer(framer_.write_data(), framer_.write_size()),
                          [self](const std::error_code& ec, size_t n) { self->OnRead(ec, n); });
}

void LineConnection::OnRead(const std::error_code& ec, size_t n) {
  if (closed_) return;
  if (ec) {
    if (ec != asio::error::eof) {
      Close();
      return;
    }
    // End of stream: a last line without '\n' still counts, and replies
    // still being written are finished before closing.
    close_after_write_ = true;
    if (framer_.FinishPartialLine()) {
      Dispatch();
    } else if (!write_in_flight_) {
      Close();
    }
    return;
  }
  idle_.Touch();
  MarkBusy();
  if (framer_.Commit(n) == LineFramer::Result::kLineTooLong) {
    Close();
    return;
  }
  if (Dispatch()) DoRead();
}

bool LineConnection::Dispatch() {
  const std::string_view lines = framer_.CompleteLines();
  LineHandler::Action action = LineHandler::Action::kContinue;
  if (!lines.empty()) {
    size_t consumed = lines.size();
    action = handler_->HandleLines(lines, &reply_, &consumed);
    paused_ = action == LineHandler::Action::kPause && consumed < lines.size();
    if (paused_) {
      framer_.ConsumeLines(consumed);
    } else {
      framer_.ConsumeCompleteLines();
    }
  }
  if (action == LineHandler::Action::kClose) close_after_write_ = true;
  if (!reply_.empty() && !write_in_flight_) DoWrite();
  if (paused_) {
    if (write_in_flight_) {
      // Resumed by OnWritten; closed if the client takes nothing for long.
      if (options_.write_timeout.count() > 0) {
        idle_.WakeBy(write_progress_ + options_.write_timeout);
      }
      return false;
    }
    paused_ = false;  // nothing unsent after all: handle the rest now
    return Dispatch();
  }
  if (close_after_write_) {
    if (!write_in_flight_) Close();
    return false;
  }
  if (!write_in_flight_ && framer_.partial_size() == 0) MarkIdle();
  return true;
}

void LineConnection::DoWrite() {
  reply_.TakeInto(&writing_);
  written_ = 0;
  // Bytes in flight count against the cap until they are written.
  reply_.set_in_flight(writing_.size());
  write_in_flight_ = true;
  write_progress_ = IdleTimer::Clock::now();
  MarkBusy();
  WriteSome();
}

void LineConnection::WriteSome() {
  auto self = shared_from_this();
  socket_.async_write_some(
      asio::buffer(writing_.data() + written_, writing_.size() - written_),
      [self](const std::error_code& ec, size_t n) { self->OnWritten(ec, n); });
}

void LineConnection::OnWritten(const std::error_code& ec, size_t n) {
  if (ec || closed_) {
    write_in_flight_ = false;
    Close();
    return;
  }
  written_ += n;
  idle_.Touch();
  if (written_ < writing_.size()) {
    // Partial write: the client is reading, if slowly.
    write_progress_ = IdleTimer::Clock::now();
    reply_.set_in_flight(writing_.size() - written_);
    WriteSome();
    return;
  }
  write_in_flight_ = false;
  reply_.set_in_flight(0);
  if (paused_) {
    paused_ = false;
    if (Dispatch()) DoRead();
    return;
  }
  if (!reply_.empty()) {
    DoWrite();
  } else if (close_after_write_) {
    Close();
  } else if (framer_.partial_size() == 0) {
    MarkIdle();
  }
}

void LineConnection::Close() {
  if (closed_) return;
  closed_ = true;
  paused_ = false;
  idle_.Cancel();
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  manager_->Remove(this);
}

}  // namespace sundial::net
