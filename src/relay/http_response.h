// ParseHttpResponse: an HTTP/1.x response read by the relay from an
// upstream, which is untrusted network input (fuzzed by
// test/relay/relay_http_response_fuzz.cc).
//
// Understood: the status line, Content-Length, Transfer-Encoding: chunked
// (chunk extensions and trailers skipped), Connection: close, and a body
// that ends with the connection (no length, close-delimited).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace sundial::relay {

constexpr size_t kMaxResponseHead = 64 * 1024;
constexpr size_t kMaxResponseBody = 1 << 20;

struct HttpResponse {
  int status = 0;
  std::string body;       // decoded (chunks joined), at most kMaxResponseBody
  bool keep_alive = true; // false: the upstream closes (or must be closed)
};

enum class ParseResult { kComplete, kIncomplete, kBad };

// Parses a response from the start of `in`. kComplete fills *out and sets
// *consumed to its length. With eof (the connection ended), a response
// without a length ends at the end of `in`. kBad: not HTTP, or a limit above
// is exceeded; *error says why.
ParseResult ParseHttpResponse(std::string_view in, bool eof, HttpResponse* out, size_t* consumed,
                              std::string* error);

}  // namespace sundial::relay
