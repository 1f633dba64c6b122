// The telnet put-line sink: each connection parses its runs of `put` lines
// with its own ingest::TelnetPutHandler and appends them to storage in one
// batch before the connection reads again.
#include <string>

#include "ingest_service.h"
#include "put_line_sink.h"
#include "service_context.h"

namespace sundial::server {

namespace {

class IngestPutSink : public PutLineSink {
 public:
  explicit IngestPutSink(std::unique_ptr<ingest::TelnetPutHandler> handler)
      : handler_(std::move(handler)) {}

  size_t HandlePutLines(std::string_view lines, net::ReplyBuffer* reply) override {
    errors_.clear();
    const size_t pos = handler_->HandlePutLines(lines, &errors_);
    (void)handler_->Flush(&errors_);  // failures are reported in errors_
    if (!errors_.empty() && !reply->Append(errors_)) {
      // Over the cap as a whole: keep as many whole lines as fit.
      for (size_t p = 0; p < errors_.size();) {
        const size_t e = errors_.find('\n', p);
        if (!reply->Append(std::string_view(errors_).substr(p, e + 1 - p))) break;
        p = e + 1;
      }
    }
    return pos;
  }

 private:
  const std::unique_ptr<ingest::TelnetPutHandler> handler_;
  std::string errors_;  // error lines of one call
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
};

class PutSinkFactory : public PutLineSinkFactory {
 public:
  explicit PutSinkFactory(IngestService* ingest) : ingest_(ingest) {}
  std::unique_ptr<PutLineSink> NewSink() override {
    if (ingest_ == nullptr || ingest_->storage() == nullptr) {
      return std::make_unique<UnavailablePutSink>();
    }
    return std::make_unique<IngestPutSink>(ingest_->NewTelnetHandler());
  }

 private:
  IngestService* const ingest_;
};

}  // namespace

std::unique_ptr<PutLineSinkFactory> NewPutLineSinkFactory(ServiceContext* ctx) {
  return std::make_unique<PutSinkFactory>(ctx->ingest);
}

}  // namespace sundial::server
