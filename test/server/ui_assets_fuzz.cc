// libFuzzer target: the built-in page's request handling. The input is
// split at the first two '\n' into a URL path, an If-None-Match header value
// and an Accept-Encoding header value, as a client could send them. Each
// must give a well-formed answer: an unknown path no asset, a known one a
// 304 with no body or a 200 with exactly the embedded bytes (plain or gzip,
// as the client allows).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sundial/http/body_codec.h"
#include "ui_assets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sundial;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  auto take_line = [&in]() {
    const size_t nl = in.find('\n');
    const std::string_view line = in.substr(0, nl);
    in = nl == std::string_view::npos ? std::string_view() : in.substr(nl + 1);
    return line;
  };
  const std::string_view path = take_line();
  const std::string_view if_none_match = take_line();
  const std::string_view accept_encoding = in;
  const server::UiAsset* asset = server::FindUiAsset(path);
  if (asset == nullptr) return 0;
  if (asset->path != path) __builtin_trap();
  const bool gzip_ok = http::AcceptsGzip(accept_encoding);
  const http::Reply r = server::UiAssetReply(*asset, if_none_match, gzip_ok);
  const bool match = server::EtagMatches(if_none_match, asset->etag);
  if (match != (r.status == 304)) __builtin_trap();
  if (r.status == 304 && !r.body.empty()) __builtin_trap();
  const bool packed = gzip_ok && !asset->gzip.empty();
  if (r.status == 200 && r.body != (packed ? asset->gzip : asset->body)) __builtin_trap();
  return 0;
}
