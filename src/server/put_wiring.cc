// Chooses the telnet put-line sink. Placeholder until ingest/ is wired in:
// every put line is answered with an error line.
#include <cstring>

#include "put_line_sink.h"
#include "service_context.h"

namespace sundial::server {

namespace {

class UnavailablePutSink : public PutLineSink {
 public:
  size_t HandlePutLines(std::string_view lines, net::ReplyBuffer* reply) override {
    size_t pos = 0;
    while (pos < lines.size() && IsPutLine(lines.substr(pos))) {
      const size_t nl = lines.find('\n', pos);
      pos = nl + 1;
      reply->Append("put: unavailable: ingest is not configured in this build\n");
    }
    return pos;
  }
};

class UnavailablePutSinkFactory : public PutLineSinkFactory {
 public:
  std::unique_ptr<PutLineSink> NewSink() override { return std::make_unique<UnavailablePutSink>(); }
};

}  // namespace

std::unique_ptr<PutLineSinkFactory> NewPutLineSinkFactory(ServiceContext* /*ctx*/) {
  return std::make_unique<UnavailablePutSinkFactory>();
}

}  // namespace sundial::server
