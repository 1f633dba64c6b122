#include "sundial/http/body_codec.h"

#include <zlib.h>

#include <algorithm>
#include <cstdlib>

#include "ascii_util.h"

namespace sundial::http {

namespace {

// windowBits for inflateInit2: 16+15 gzip, 15 zlib, -15 raw deflate.
Status InflateWith(int window_bits, std::string_view in, uint64_t max_out, std::string* out) {
  z_stream zs{};
  if (inflateInit2(&zs, window_bits) != Z_OK) return Status::IOError("inflateInit2 failed");
  out->clear();
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());  // bodies are < 4 GiB (limit)
  char chunk[64 * 1024];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof(chunk);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    const size_t produced = sizeof(chunk) - zs.avail_out;
    if (out->size() + produced > max_out) {
      inflateEnd(&zs);
      return Status::ResourceExhausted("decompressed body exceeds the limit");
    }
    if (out->capacity() < out->size() + produced) {
      // Grow geometrically, but never past the limit: a body near it must
      // not hold twice the limit while it is inflated.
      const uint64_t want = std::max<uint64_t>(2 * out->capacity(), out->size() + produced);
      out->reserve(static_cast<size_t>(std::min<uint64_t>(want, max_out)));
    }
    out->append(chunk, produced);
    if (rc == Z_OK && produced == 0 && zs.avail_in == 0) break;  // truncated input
  }
  const bool trailing = zs.avail_in != 0;
  inflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::InvalidArgument("body is not valid compressed data");
  if (trailing) return Status::InvalidArgument("garbage after the compressed body");
  return Status::OK();
}

}  // namespace

ContentCoding ParseContentCoding(std::string_view header) {
  header = TrimOws(header);
  if (header.empty() || EqualsNoCase(header, "identity")) return ContentCoding::kIdentity;
  if (EqualsNoCase(header, "gzip") || EqualsNoCase(header, "x-gzip")) return ContentCoding::kGzip;
  if (EqualsNoCase(header, "deflate")) return ContentCoding::kDeflate;
  if (EqualsNoCase(header, "snappy")) return ContentCoding::kSnappy;
  return ContentCoding::kUnknown;
}

Status Inflate(ContentCoding coding, std::string_view in, uint64_t max_out, std::string* out) {
  if (coding == ContentCoding::kGzip) return InflateWith(16 + MAX_WBITS, in, max_out, out);
  // deflate: zlib-wrapped per the RFC; fall back to raw deflate.
  Status s = InflateWith(MAX_WBITS, in, max_out, out);
  if (s.IsInvalidArgument()) s = InflateWith(-MAX_WBITS, in, max_out, out);
  return s;
}

Status GzipCompress(std::string_view in, std::string* out) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::IOError("deflateInit2 failed");
  }
  out->resize(deflateBound(&zs, static_cast<uLong>(in.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out->data());
  zs.avail_out = static_cast<uInt>(out->size());
  const int rc = deflate(&zs, Z_FINISH);
  out->resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Status::IOError("gzip compression failed");
  return Status::OK();
}

struct GzipStream::State {
  z_stream zs{};
  bool ok = false;
};

GzipStream::GzipStream() : state_(std::make_unique<State>()) {
  state_->ok = deflateInit2(&state_->zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8,
                            Z_DEFAULT_STRATEGY) == Z_OK;
}

GzipStream::~GzipStream() {
  if (state_->ok) deflateEnd(&state_->zs);
}

Status GzipStream::Run(std::string_view in, int flush, std::string* out) {
  if (!state_->ok) return Status::IOError("gzip stream is not usable");
  z_stream& zs = state_->zs;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  char chunk[16 * 1024];
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(chunk);
    zs.avail_out = sizeof(chunk);
    const int rc = deflate(&zs, flush);
    if (rc == Z_STREAM_ERROR) {
      state_->ok = false;
      return Status::IOError("gzip compression failed");
    }
    out->append(chunk, sizeof(chunk) - zs.avail_out);
    if (flush == Z_FINISH ? rc == Z_STREAM_END : (zs.avail_in == 0 && zs.avail_out != 0)) break;
  }
  return Status::OK();
}

Status GzipStream::Write(std::string_view in, std::string* out) {
  return Run(in, Z_NO_FLUSH, out);
}

Status GzipStream::Finish(std::string* out) { return Run({}, Z_FINISH, out); }

bool AcceptsGzip(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const size_t comma = accept_encoding.find(',');
    std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view() : accept_encoding.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string_view coding = TrimOws(item.substr(0, semi));
    if (!EqualsNoCase(coding, "gzip") && coding != "*") continue;
    if (semi == std::string_view::npos) return true;
    std::string_view param = TrimOws(item.substr(semi + 1));
    if (param.size() >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=') {
      const std::string q(TrimOws(param.substr(2)));
      if (std::strtod(q.c_str(), nullptr) <= 0.0) continue;
    }
    return true;
  }
  return false;
}

}  // namespace sundial::http
