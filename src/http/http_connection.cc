#include "sundial/http/http_connection.h"

#include <charconv>
#include <cstdio>

#include <asio/post.hpp>
#include <asio/write.hpp>

#include "ascii_util.h"
#include "responder_impl.h"
#include "sundial/http/body_codec.h"

namespace sundial::http {

namespace {

constexpr std::chrono::seconds kLingerTime{2};

// A written reply buffer up to this size is kept for the next reply, so a
// keep-alive connection does not allocate one per request.
constexpr size_t kSpareBufferMax = 16 * 1024;

// Fixed bytes of a reply head besides the fields' contents: the longest
// fixed lines of AppendHead, rounded up.
constexpr size_t kHeadFixedBytes = 256;

template <typename Int>
void AppendDecimal(Int v, std::string* out) {
  char buf[24];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

bool StatusHasBody(int status) { return status >= 200 && status != 204 && status != 304; }

void AppendChunk(std::string_view data, std::string* out) {
  char size[24];
  snprintf(size, sizeof(size), "%zx\r\n", data.size());
  *out += size;
  out->append(data);
  *out += "\r\n";
}

}  // namespace

HttpConnection::HttpConnection(asio::ip::tcp::socket socket, const Router* router,
                               const HttpOptions& options, net::ConnectionManager* manager)
    : socket_(AdoptSocket(std::move(socket))),
      ex_(socket_.get_executor()),
      router_(router),
      options_(options),
      manager_(manager),
      parser_(options.limits),
      idle_(ex_),
      read_buf_(new char[options.read_size]),
      linger_timer_(ex_) {}

HttpConnection::~HttpConnection() { manager_->Remove(this); }

void HttpConnection::Start(std::string_view first_bytes) {
  auto self = shared_from_this();
  asio::post(ex_, [self, bytes = std::string(first_bytes)] {
    std::error_code ec;
    const asio::ip::address peer = self->socket_.remote_endpoint(ec).address();
    if (self->manager_->Add(self, peer, /*enforce_limit=*/false) !=
        net::ConnectionManager::AddResult::kAdded) {
      self->Close();  // the server is stopping
      return;
    }
    // The write check runs at least twice per write_timeout (see OnTimer).
    self->idle_.Start(self->options_.idle_timeout, self->options_.write_timeout / 2, self,
                      [raw = self.get()](net::IdleTimer::Clock::time_point now, bool idle) {
                        return raw->OnTimer(now, idle);
                      });
    self->Feed(bytes.data(), bytes.size());
  });
}

void HttpConnection::Stop() {
  // Queued behind the responder calls made before it, as they were.
  Op op;
  op.kind = Op::Kind::kStop;
  Submit(std::move(op));
}

// ---- Reading and parsing ----

void HttpConnection::DoRead() {
  reading_ = true;
  auto self = shared_from_this();
  socket_.async_read_some(
      asio::buffer(read_buf_.get(), options_.read_size),
      [self](const std::error_code& ec, size_t n) { self->OnRead(ec, n); });
}

void HttpConnection::OnRead(const std::error_code& ec, size_t n) {
  reading_ = false;
  if (closed_) return;
  if (lingering_) {  // draining after the last reply
    if (ec) {
      Close();
    } else {
      DoRead();
    }
    return;
  }
  if (ec) {
    // The client is done sending: answer what is pending, then close.
    read_done_ = true;
    if (ec != asio::error::eof || parser_.in_message()) {
      Close();
      return;
    }
    DoWrite();
    return;
  }
  idle_.Touch();
  MarkBusy();
  Feed(read_buf_.get(), n);
}

void HttpConnection::Feed(const char* data, size_t n) {
  const size_t used = ParseSome(data, n);
  if (used < n && !read_done_) pending_.append(data + used, n - used);
  AfterParse();
}

void HttpConnection::ResumeParsing() {
  if (!pending_.empty()) {
    std::string buf;
    buf.swap(pending_);
    const size_t used = ParseSome(buf.data(), buf.size());
    if (used < buf.size() && !read_done_) pending_.assign(buf, used, std::string::npos);
  }
  AfterParse();
}

size_t HttpConnection::ParseSome(const char* data, size_t n) {
  size_t off = 0;
  while (off < n && !read_done_ && !closed_ && slots_.size() < options_.max_in_flight &&
         !OutputFull()) {
    size_t used = 0;
    Request request;
    const RequestParser::Result r = parser_.Parse(data + off, n - off, &used, &request);
    off += used;
    if (r == RequestParser::Result::kRequest) {
      StartRequest(std::move(request));
      continue;
    }
    if (r == RequestParser::Result::kError) {
      AnswerParseError();
      break;
    }
    // kNeedMore: everything was consumed. Let a waiting client send its body.
    if (parser_.TakeExpectContinue()) {
      Slot interim;
      interim.seq = next_seq_++;
      interim.out = "HTTP/1.1 100 Continue\r\n\r\n";
      interim.done = true;
      slots_.push_back(std::move(interim));
    }
  }
  return off;
}

void HttpConnection::AfterParse() {
  if (closed_) return;
  // A request only partly received: its receive deadline starts now.
  if (!parser_.in_message()) {
    request_timing_ = false;
  } else if (!request_timing_ && options_.request_timeout.count() > 0) {
    request_timing_ = true;
    request_start_ = net::IdleTimer::Clock::now();
    idle_.WakeBy(RequestDue());
  }
  if (!read_done_ && !reading_ && pending_.empty() && slots_.size() < options_.max_in_flight &&
      !OutputFull()) {
    DoRead();
  }
  DoWrite();
}

void HttpConnection::StartRequest(Request&& request) {
  parser_.TakeExpectContinue();  // the body is here already
  request_timing_ = false;  // a pipelined next request starts its own clock
  Slot& slot = slots_.emplace_back();
  slot.seq = next_seq_++;
  slot.close_after = !request.keep_alive;
  slot.accepts_gzip =
      options_.gzip_responses && AcceptsGzip(request.headers.Get("Accept-Encoding"));
  slot.http_minor = request.http_minor;
  slot.head_only = request.method == Method::kHead;
  if (const std::string* id = request.headers.Find(kRequestIdHeader);
      id != nullptr && IsEchoableRequestId(*id)) {
    slot.request_id = *id;
  }
  if (slot.close_after) read_done_ = true;
  const uint64_t seq = slot.seq;
  if (!options_.cors.domains.empty() && HandleCors(request, &slot)) return;
  auto responder = std::make_shared<ResponderImpl>(shared_from_this(), seq);
  // Handlers report errors as replies, never by throwing (Dispatch is
  // noexcept): no exception crosses from a module into the I/O thread.
  router_->Dispatch(std::move(request), responder);
}

bool HttpConnection::HandleCors(const Request& request, Slot* slot) {
  const std::string_view origin = request.headers.Get("Origin");
  if (origin.empty()) return false;
  bool allowed = false;
  for (const std::string& d : options_.cors.domains) {
    if (d == "*" || EqualsNoCase(d, origin)) {
      allowed = true;
      break;
    }
  }
  const uint64_t seq = slot->seq;
  if (!allowed) {
    OnSend(seq, Reply::Error(200, "CORS domain not allowed",
                             "The domain [" + std::string(origin) + "] is not permitted access"));
    return true;
  }
  slot->cors_origin = std::string(origin);
  if (request.method == Method::kOptions) {
    Reply preflight;
    preflight.status = 200;
    preflight.content_type.clear();
    OnSend(seq, std::move(preflight));
    return true;
  }
  return false;
}

void HttpConnection::AnswerParseError() {
  read_done_ = true;
  pending_.clear();
  const ParseError& err = parser_.error();
  Reply reply;
  if (err.bare) {
    reply.status = err.status;
    reply.content_type.clear();
  } else {
    reply = Reply::Error(err.status, err.message);
  }
  reply.close = true;
  Slot slot;
  slot.seq = next_seq_++;
  slot.close_after = true;
  const uint64_t seq = slot.seq;
  slots_.push_back(std::move(slot));
  OnSend(seq, std::move(reply));
}

HttpConnection::Slot* HttpConnection::FindSlot(uint64_t seq) {
  for (Slot& s : slots_) {
    if (s.seq == seq) return &s;
  }
  return nullptr;
}

// ---- Replies ----

void HttpConnection::AppendHead(const Reply& reply, Slot* slot, bool gzip, bool chunked) {
  std::string& out = slot->out;
  if (out.empty()) out.swap(spare_);  // reuse the last written buffer
  size_t need = kHeadFixedBytes + reply.content_type.size() + reply.body.size();
  if (!slot->cors_origin.empty()) need += slot->cors_origin.size() + options_.cors.allow_headers.size();
  for (const auto& [k, v] : reply.headers) need += k.size() + v.size() + 4;
  need += slot->request_id.size() + kRequestIdHeader.size() + 4;
  out.reserve(out.size() + need);
  out += "HTTP/1.1 ";
  AppendDecimal(reply.status, &out);
  out += ' ';
  out += StatusReason(reply.status);
  out += "\r\n";
  if (!reply.content_type.empty()) {
    out += "Content-Type: ";
    out += reply.content_type;
    out += "\r\n";
  }
  if (gzip) out += "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n";
  if (chunked) out += "Transfer-Encoding: chunked\r\n";
  if (slot->close_after) {
    out += "Connection: close\r\n";
  } else if (slot->http_minor == 0) {
    out += "Connection: keep-alive\r\n";
  }
  if (!slot->cors_origin.empty()) {
    out += "Access-Control-Allow-Origin: ";
    out += slot->cors_origin;
    out += "\r\nAccess-Control-Allow-Methods: GET, POST, PUT, DELETE\r\n";
    if (!options_.cors.allow_headers.empty()) {
      out += "Access-Control-Allow-Headers: ";
      out += options_.cors.allow_headers;
      out += "\r\n";
    }
  }
  // Exactly one X-Request-ID goes out: the client's, echoed, wins over one
  // a handler set (the Influx routes set one of their own for requests that
  // came without).
  const bool echo_id = !slot->request_id.empty();
  if (echo_id) {
    out += kRequestIdHeader;
    out += ": ";
    out += slot->request_id;
    out += "\r\n";
  }
  for (const auto& [k, v] : reply.headers) {
    if (echo_id && EqualsNoCase(k, kRequestIdHeader)) continue;
    out += k;
    out += ": ";
    out += v;
    out += "\r\n";
  }
}

void HttpConnection::OnSend(uint64_t seq, Reply reply) {
  Slot* slot = FindSlot(seq);
  if (slot == nullptr || closed_) return;
  if (reply.close) slot->close_after = true;
  std::string body = std::move(reply.body);
  bool gzip = false;
  // A handler that encoded the body itself (a precompressed file) sends its
  // own Content-Encoding header; such a body is never compressed twice.
  bool encoded = false;
  for (const auto& h : reply.headers) {
    encoded = encoded || EqualsNoCase(h.first, "Content-Encoding");
  }
  if (slot->accepts_gzip && !encoded && body.size() >= options_.gzip_min_bytes) {
    std::string packed;
    if (GzipCompress(body, &packed).ok() && packed.size() < body.size()) {
      body.swap(packed);
      gzip = true;
    }
  }
  AppendHead(reply, slot, gzip, /*chunked=*/false);
  if (StatusHasBody(reply.status)) {
    slot->out += "Content-Length: ";
    AppendDecimal(body.size(), &slot->out);
    slot->out += "\r\n\r\n";
    if (!slot->head_only) slot->out += body;
  } else {
    slot->out += "\r\n";
  }
  slot->done = true;
  DoWrite();
}

void HttpConnection::OnStartChunked(uint64_t seq, Reply head) {
  Slot* slot = FindSlot(seq);
  if (slot == nullptr || closed_) return;
  // HTTP/1.0 has no chunked encoding: the end of the body is the close.
  slot->chunked = slot->http_minor >= 1;
  if (!slot->chunked) slot->close_after = true;
  if (slot->accepts_gzip) slot->gzip = std::make_unique<GzipStream>();
  AppendHead(head, slot, slot->gzip != nullptr, slot->chunked);
  slot->out += "\r\n";
  slot->head_written = true;
  AppendBodyPiece(slot, head.body);
  DoWrite();
}

void HttpConnection::AppendBodyPiece(Slot* slot, std::string_view data) {
  std::string packed;
  if (slot->gzip && !data.empty()) {
    if (!slot->gzip->Write(data, &packed).ok()) {
      slot->close_after = true;  // cannot continue the stream
      return;
    }
    data = packed;
  }
  if (data.empty()) return;
  if (slot->chunked) {
    AppendChunk(data, &slot->out);
  } else {
    slot->out.append(data);
  }
}

void HttpConnection::OnChunk(uint64_t seq, std::string data, std::function<void(bool)> cb) {
  Slot* slot = FindSlot(seq);
  if (slot == nullptr || closed_ || !slot->head_written) {
    if (cb) cb(false);
    return;
  }
  AppendBodyPiece(slot, data);
  if (cb) {
    // The producer may go on at once while the bytes ahead of its next
    // piece are under the cap; otherwise it waits for the client to read.
    size_t index = 0;
    while (&slots_[index] != slot) ++index;
    if (slot->parked.empty() && UnsentThrough(index) <= options_.max_unsent) {
      cb(true);
      if (closed_) return;
    } else {
      slot->parked.push_back(std::move(cb));
    }
  }
  DoWrite();
}

void HttpConnection::OnFinish(uint64_t seq, bool abort) {
  Slot* slot = FindSlot(seq);
  if (slot == nullptr || closed_) return;
  if (abort) {
    slot->close_after = true;  // the body is incomplete: closing tells the client
  } else {
    if (slot->gzip) {
      std::string tail;
      if (slot->gzip->Finish(&tail).ok()) {
        if (slot->chunked) {
          AppendChunk(tail, &slot->out);
        } else {
          slot->out += tail;
        }
      } else {
        slot->close_after = true;
      }
      slot->gzip.reset();
    }
    if (slot->chunked) slot->out += "0\r\n\r\n";
  }
  slot->done = true;
  DoWrite();
}

// ---- Writing ----

void HttpConnection::DoWrite() {
  if (write_in_flight_ || closed_) return;
  bool popped = false;
  while (!slots_.empty()) {
    Slot& front = slots_.front();
    if (!front.out.empty()) {
      writing_.swap(front.out);
      front.out.clear();
      written_ = 0;
      write_in_flight_ = true;
      ++write_events_;
      WriteSome();
      return;
    }
    if (!front.done) break;  // waiting for the handler
    const bool close = front.close_after;
    slots_.pop_front();
    if (close) {
      if (stopping_) {
        Close();
      } else {
        CloseGracefully();
      }
      return;
    }
    popped = true;
  }
  if (read_done_ && slots_.empty()) {
    if (stopping_) {
      Close();
    } else {
      CloseGracefully();
    }
    return;
  }
  if (popped) {
    ResumeParsing();
  } else {
    UpdateIdle();
  }
}

void HttpConnection::WriteSome() {
  auto self = shared_from_this();
  socket_.async_write_some(asio::buffer(writing_.data() + written_, writing_.size() - written_),
                           [self](const std::error_code& ec, size_t n) { self->OnWritten(ec, n); });
}

void HttpConnection::OnWritten(const std::error_code& ec, size_t n) {
  if (ec || closed_) {
    write_in_flight_ = false;
    Close();
    return;
  }
  idle_.Touch();
  ++write_events_;
  const bool was_full = OutputFull();
  written_ += n;
  if (written_ < writing_.size()) {
    // The client reads slowly: keep writing what is left, and let waiting
    // producers and requests go on once the output is back under the cap.
    WriteSome();
    RunParkedCallbacks(true);
    if (was_full && !closed_ && !OutputFull()) ResumeParsing();
    return;
  }
  write_in_flight_ = false;
  writing_.clear();
  written_ = 0;
  if (writing_.capacity() <= kSpareBufferMax && writing_.capacity() > spare_.capacity()) {
    writing_.swap(spare_);
  }
  RunParkedCallbacks(true);
  if (closed_) return;
  DoWrite();
  // Reading paused for the cap and nothing was popped to resume it.
  if (was_full && !closed_ && !write_in_flight_) ResumeParsing();
}

void HttpConnection::CloseGracefully() {
  if (closed_ || lingering_) return;
  lingering_ = true;
  read_done_ = true;
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
  linger_timer_.expires_after(kLingerTime);
  auto self = shared_from_this();
  linger_timer_.async_wait([self](const std::error_code& ec) {
    if (ec != asio::error::operation_aborted) self->Close();
  });
  // Discard whatever the client still sends until it closes its side.
  if (!reading_) DoRead();
}

void HttpConnection::Close() {
  if (closed_) return;
  closed_ = true;
  cancelled_.store(true, std::memory_order_relaxed);
  idle_.Cancel();
  linger_timer_.cancel();
  std::error_code ignored;
  socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  RunParkedCallbacks(false);
  slots_.clear();
  pending_.clear();
  manager_->Remove(this);
}

}  // namespace sundial::http
