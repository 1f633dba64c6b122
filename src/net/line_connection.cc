#include "sundial/net/line_connection.h"

#include <asio/post.hpp>
#include <asio/write.hpp>

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
  if (!manager_->Add(self, /*enforce_limit=*/false)) {
    Close();  // the server is stopping
    return;
  }
  idle_.Start(options_.idle_timeout, self, [this] {
    Close();
    return true;
  });
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
    action = handler_->HandleLines(lines, &reply_);
    framer_.ConsumeCompleteLines();
  }
  if (action == LineHandler::Action::kClose) close_after_write_ = true;
  if (!reply_.empty() && !write_in_flight_) DoWrite();
  if (close_after_write_) {
    if (!write_in_flight_) Close();
    return false;
  }
  return true;
}

void LineConnection::DoWrite() {
  reply_.TakeInto(&writing_);
  // Bytes in flight count against the cap until they are written.
  reply_.set_limit(options_.max_pending_reply > writing_.size()
                       ? options_.max_pending_reply - writing_.size()
                       : 0);
  write_in_flight_ = true;
  auto self = shared_from_this();
  asio::async_write(socket_, asio::buffer(writing_),
                    [self](const std::error_code& ec, size_t /*n*/) {
                      self->write_in_flight_ = false;
                      if (ec || self->closed_) {
                        self->Close();
                        return;
                      }
                      self->idle_.Touch();
                      self->reply_.set_limit(self->options_.max_pending_reply);
                      if (!self->reply_.empty()) {
                        self->DoWrite();
                      } else if (self->close_after_write_) {
                        self->Close();
                      }
                    });
}

void LineConnection::Close() {
  if (closed_) return;
  closed_ = true;
  idle_.Cancel();
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  manager_->Remove(this);
}

}  // namespace sundial::net
