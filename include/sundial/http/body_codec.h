// Content codings for request and response bodies (zlib).
//
// Request bodies may arrive with Content-Encoding gzip or deflate
// (opentsdb-compat.md §3.4); "deflate" is accepted both zlib-wrapped (RFC
// 1950, what the RFC means) and raw (RFC 1951, what some clients send).
// Responses are gzip-compressed when the client allows it (§3.5).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sundial/common/status.h"

namespace sundial::http {

// kSnappy (Prometheus remote_write) is passed through undecoded: the body is
// a snappy block that only its handler knows how to check and bound.
enum class ContentCoding { kIdentity, kGzip, kDeflate, kSnappy, kUnknown };

// Parses a Content-Encoding header value ("" means identity).
ContentCoding ParseContentCoding(std::string_view header);

// Inflates `in` into *out. Errors: InvalidArgument for data that is not
// valid in the coding (including a truncated stream), ResourceExhausted
// once the output would exceed max_out bytes.
// REQUIRES: coding is kGzip or kDeflate.
Status Inflate(ContentCoding coding, std::string_view in, uint64_t max_out, std::string* out);

// gzip-compresses `in` into *out (fast level).
Status GzipCompress(std::string_view in, std::string* out);

// Incremental gzip compression for streamed (chunked) replies. About 270 KB
// of zlib state while alive. Not thread-safe.
class GzipStream {
 public:
  GzipStream();
  ~GzipStream();
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  // Compresses `in`, appending whatever output zlib produced to *out (may be
  // nothing yet: zlib buffers until it has a block's worth).
  Status Write(std::string_view in, std::string* out);
  // Ends the stream, appending the rest of the output and the trailer.
  Status Finish(std::string* out);

 private:
  Status Run(std::string_view in, int flush, std::string* out);
  struct State;
  std::unique_ptr<State> state_;
};

// True if an Accept-Encoding header value allows gzip (a "gzip" or "*"
// token whose q is not 0).
bool AcceptsGzip(std::string_view accept_encoding);

}  // namespace sundial::http
