// libFuzzer target: the HTTP request parsing layer (http_parser plus our
// wrapper: limits, chunked and gzip/deflate bodies, query strings). The
// first byte picks the read size, so requests are split at many places.
#include <cstdint>
#include <string>

#include "sundial/http/request_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t chunk = 1 + data[0] % 64;
  sundial::http::ParserLimits limits;
  limits.max_body_bytes = 1 << 16;
  sundial::http::RequestParser parser(limits);
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
    }
    p += used;
    left -= used;
    if (used == 0 && r != sundial::http::RequestParser::Result::kRequest) return 0;
  }
  return 0;
}
