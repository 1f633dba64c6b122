// libFuzzer target: the HTTP request parsing layer (http_parser plus our
// wrapper: limits, chunked and gzip/deflate bodies, query strings) and the
// routing of what it parses (path segments, API versions, route_rest). The
// first byte picks the read size, so requests are split at many places.
#include <cstdint>
#include <memory>
#include <string>

#include "sundial/http/request_parser.h"
#include "sundial/http/router.h"

namespace {

using sundial::http::Method;
using sundial::http::Reply;
using sundial::http::Request;
using sundial::http::ResponderPtr;

// Keeps nothing; checks that every routed request got exactly one answer.
class CountingResponder : public sundial::http::Responder {
 public:
  void Send(Reply) override { ++answers; }
  void StartChunked(Reply) override { ++answers; }
  void WriteChunk(std::string, std::function<void(bool)>) override {}
  void Finish() override {}
  bool cancelled() const override { return false; }
  int answers = 0;
};

void AddRoutes(sundial::http::Router* r) {
  const auto answer = [](Request req, ResponderPtr resp) {
    if (req.route.empty()) __builtin_trap();
    resp->Send(Reply::Json(std::move(req.route_rest)));
  };
  r->Add({Method::kGet, Method::kPost}, "/api/query", answer);
  r->Add({Method::kGet}, "/api/query/last", answer);
  r->Add({Method::kGet}, "/api/a/b/c/d/e/f", answer);  // the deepest allowed
  r->Add({Method::kPost}, "/api/put", answer);
  r->Add({Method::kGet}, "/metrics", answer);
  r->Add({Method::kGet}, "/", answer);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = 1 + data[0] % 64;
  sundial::http::ParserLimits limits;
  limits.max_body_bytes = 1 << 16;
  sundial::http::RequestParser parser(limits);
  sundial::http::Router router;
  AddRoutes(&router);
  const char* p = reinterpret_cast<const char*>(data + 1);
  size_t left = size - 1;
  while (left > 0) {
    size_t len = left < chunk ? left : chunk;
    size_t used = 0;
    sundial::http::Request request;
    auto r = parser.Parse(p, len, &used, &request);
    if (used > len) __builtin_trap();
    if (r == sundial::http::RequestParser::Result::kError) {
      if (parser.error().status < 400) __builtin_trap();
      return 0;
    }
    if (r == sundial::http::RequestParser::Result::kRequest) {
      if (request.body.size() > limits.max_body_bytes) __builtin_trap();
      (void)request.params.Get("m");
      auto responder = std::make_shared<CountingResponder>();
      router.Dispatch(std::move(request), responder);
      if (responder->answers != 1) __builtin_trap();
    }
    p += used;
    left -= used;
    if (used == 0 && r != sundial::http::RequestParser::Result::kRequest) return 0;
  }
  return 0;
}
