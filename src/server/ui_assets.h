// The built-in web page's files (src/server/ui/), embedded in the binary at
// build time by scripts/cmake/embed_assets.cmake, so that sundiald serves
// its page with nothing to install and no network access.
//
// Every field points into constant data of the program: valid for its whole
// life, never freed, safe to read from any thread.
#pragma once

#include <cstddef>
#include <string_view>

#include "sundial/http/reply.h"

namespace sundial::server {

struct UiAsset {
  std::string_view path;          // URL path, "/ui/<file name>"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view body;          // the file's bytes
  std::string_view gzip;          // gzip -9 of body; empty when not smaller
  std::string_view etag;          // strong validator, quoted: "\"<hex>\""
};

// The embedded files, in the order CMake lists them; *count gets their number.
const UiAsset* UiAssets(size_t* count);

// The asset with this URL path (exact, case-sensitive), or nullptr.
const UiAsset* FindUiAsset(std::string_view path);

// The sum of every asset's body size, in bytes.
size_t UiAssetsTotalBytes();

// True if an If-None-Match header value names etag: "*", or a comma-separated
// list of entity tags one of which equals it (a weak "W/" prefix is ignored,
// as RFC 9110 asks for If-None-Match).
bool EtagMatches(std::string_view if_none_match, std::string_view etag);

// The reply to a GET of the asset: 304 with no body when if_none_match names
// its ETag, else 200 with the gzip form (Content-Encoding: gzip) when
// gzip_ok and there is one, else the plain bytes. Every reply carries the
// ETag, "Cache-Control: no-cache" (the browser revalidates each time, so a
// new build is seen at once; an unchanged file costs one 304) and
// "Vary: Accept-Encoding", plus a Content-Security-Policy that allows only
// the server's own scripts and styles and "X-Content-Type-Options: nosniff".
http::Reply UiAssetReply(const UiAsset& asset, std::string_view if_none_match, bool gzip_ok);

}  // namespace sundial::server
