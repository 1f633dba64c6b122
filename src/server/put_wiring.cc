// The telnet put-line sink: each connection parses its runs of `put` lines
// with its own ingest::TelnetPutHandler, and its InfluxDB line-protocol lines
// with its own ingest::LineProtocolHandler (made on the first such line), and
// appends them to storage before the connection reads again.
#include <string>

#include "ingest_service.h"
#include "put_line_sink.h"
#include "service_context.h"
#include "wall_clock.h"

namespace sundial::server {

namespace {

// Appends error lines to reply; over the cap as a whole, as many whole
// lines as fit.
void AppendErrorLines(const std::string& errors, net::ReplyBuffer* reply) {
  if (errors.empty() || reply->Append(errors)) return;
  for (size_t p = 0; p < errors.size();) {
    const size_t e = errors.find('\n', p);
    if (!reply->Append(std::string_view(errors).substr(p, e + 1 - p))) break;
    p = e + 1;
  }
}

class IngestPutSink : public PutLineSink {
 public:
  IngestPutSink(IngestService* ingest, std::unique_ptr<ingest::TelnetPutHandler> handler)
      : ingest_(ingest), handler_(std::move(handler)) {}

  bool HandleLineProtocol(std::string_view line, net::ReplyBuffer* reply) override {
    if (!ingest::LooksLikeLineProtocol(line)) return false;
    if (influx_ == nullptr) influx_ = ingest_->NewLineProtocolHandler();
    if (influx_->pending() == 0) now_ms_ = NowMs();  // one receive time per read buffer
    if (!influx_->HandleLine(line, ingest::Precision::kNanosecond, now_ms_, &error_)) {
      error_.insert(0, "influx: ");
      error_.push_back('\n');
      reply->Append(error_);
    }
    return true;
  }

  void FlushLineProtocol(net::ReplyBuffer* reply) override {
    if (influx_ == nullptr || influx_->pending() == 0) return;
    const Status s = influx_->Flush(nullptr);
    // Nothing of the buffer was stored: one line says so (put answers one
    // line per point; line protocol has no per-point replies).
    if (!s.ok()) reply->Append("influx: storage error: " + s.ToString() + "\n");
  }

  size_t HandlePutLines(std::string_view lines, net::ReplyBuffer* reply) override {
    errors_.clear();
    const size_t pos = handler_->HandlePutLines(lines, &errors_);
    (void)handler_->Flush(&errors_);  // failures are reported in errors_
    AppendErrorLines(errors_, reply);
    return pos;
  }

 private:
  IngestService* const ingest_;
  const std::unique_ptr<ingest::TelnetPutHandler> handler_;
  std::string errors_;  // error lines of one call
  // Line protocol on this connection: made on its first line.
  std::unique_ptr<ingest::LineProtocolHandler> influx_;
  std::string error_;
  int64_t now_ms_ = 0;
};

class UnavailablePutSink : public PutLineSink {
 public:
  size_t HandlePutLines(std::string_view lines, net::ReplyBuffer* reply) override {
    size_t pos = 0;
    while (pos < lines.size() && IsPutLine(lines.substr(pos))) {
      const size_t nl = lines.find('\n', pos);
      pos = nl == std::string_view::npos ? lines.size() : nl + 1;
      reply->Append("put: HBase error: storage is not available\n");
    }
    return pos;
  }
  bool HandleLineProtocol(std::string_view line, net::ReplyBuffer* reply) override {
    if (!ingest::LooksLikeLineProtocol(line)) return false;
    reply->Append("influx: storage is not available\n");
    return true;
  }
};

class PutSinkFactory : public PutLineSinkFactory {
 public:
  explicit PutSinkFactory(IngestService* ingest) : ingest_(ingest) {}
  std::unique_ptr<PutLineSink> NewSink() override {
    if (ingest_ == nullptr || ingest_->storage() == nullptr) {
      return std::make_unique<UnavailablePutSink>();
    }
    return std::make_unique<IngestPutSink>(ingest_, ingest_->NewTelnetHandler());
  }

 private:
  IngestService* const ingest_;
};

}  // namespace

std::unique_ptr<PutLineSinkFactory> NewPutLineSinkFactory(ServiceContext* ctx) {
  return std::make_unique<PutSinkFactory>(ctx->ingest);
}

}  // namespace sundial::server
