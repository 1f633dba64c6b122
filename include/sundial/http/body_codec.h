// Content codings for request and response bodies (zlib).
//
// Request bodies may arrive with Content-Encoding gzip or deflate
// (opentsdb-compat.md §3.4); "deflate" is accepted both zlib-wrapped (RFC
// 1950, what the RFC means) and raw (RFC 1951, what some clients send).
// Responses are gzip-compressed when the client allows it (§3.5).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sundial/common/status.h"

namespace sundial::http {

enum class ContentCoding { kIdentity, kGzip, kDeflate, kUnknown };

// Parses a Content-Encoding header value ("" means identity).
ContentCoding ParseContentCoding(std::string_view header);

// Inflates `in` into *out. Errors: InvalidArgument for data that is not
// valid in the coding (including a truncated stream), ResourceExhausted
// once the output would exceed max_out bytes.
// REQUIRES: coding is kGzip or kDeflate.
Status Inflate(ContentCoding coding, std::string_view in, uint64_t max_out, std::string* out);

// gzip-compresses `in` into *out (fast level).
Status GzipCompress(std::string_view in, std::string* out);

// True if an Accept-Encoding header value allows gzip (a "gzip" or "*"
// token whose q is not 0).
bool AcceptsGzip(std::string_view accept_encoding);

}  // namespace sundial::http
