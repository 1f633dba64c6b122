#include "ui_assets.h"

#include <string>

namespace sundial::server {

const UiAsset* FindUiAsset(std::string_view path) {
  size_t n = 0;
  const UiAsset* assets = UiAssets(&n);
  for (size_t i = 0; i < n; ++i) {
    if (assets[i].path == path) return &assets[i];
  }
  return nullptr;
}

size_t UiAssetsTotalBytes() {
  size_t n = 0;
  const UiAsset* assets = UiAssets(&n);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) total += assets[i].body.size();
  return total;
}

bool EtagMatches(std::string_view if_none_match, std::string_view etag) {
  size_t i = 0;
  while (i < if_none_match.size()) {
    size_t j = if_none_match.find(',', i);
    if (j == std::string_view::npos) j = if_none_match.size();
    std::string_view tag = if_none_match.substr(i, j - i);
    while (!tag.empty() && (tag.front() == ' ' || tag.front() == '\t')) tag.remove_prefix(1);
    while (!tag.empty() && (tag.back() == ' ' || tag.back() == '\t')) tag.remove_suffix(1);
    if (tag == "*") return true;
    if (tag.size() > 2 && tag[0] == 'W' && tag[1] == '/') tag.remove_prefix(2);
    if (tag == etag) return true;
    i = j + 1;
  }
  return false;
}

http::Reply UiAssetReply(const UiAsset& asset, std::string_view if_none_match, bool gzip_ok) {
  http::Reply r;
  r.headers.emplace_back("ETag", std::string(asset.etag));
  r.headers.emplace_back("Cache-Control", "no-cache");
  // The page loads nothing from elsewhere and runs no inline script.
  r.headers.emplace_back("Content-Security-Policy", "default-src 'self'; img-src 'self' data:");
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  if (!if_none_match.empty() && EtagMatches(if_none_match, asset.etag)) {
    r.status = 304;
    r.content_type.clear();
    r.headers.emplace_back("Vary", "Accept-Encoding");
    return r;
  }
  r.content_type = std::string(asset.content_type);
  if (gzip_ok && !asset.gzip.empty()) {
    r.body = std::string(asset.gzip);
    r.headers.emplace_back("Content-Encoding", "gzip");
  } else {
    r.body = std::string(asset.body);
  }
  r.headers.emplace_back("Vary", "Accept-Encoding");
  return r;
}

}  // namespace sundial::server
