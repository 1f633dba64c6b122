#include "ui_assets.h"

#include <gtest/gtest.h>

#include <string>

#include "sundial/http/body_codec.h"

namespace sundial::server {
namespace {

// The embedded page stays small enough for a Pi Zero's flash and a slow
// link: this bound is stated in the README.
constexpr size_t kMaxTotalBytes = 128 * 1024;

const std::string* FindHeader(const http::Reply& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return &v;
  }
  return nullptr;
}

TEST(UiAssets, EachHasItsTypeAnEtagAndAGzipFormOfTheSameBytes) {
  size_t n = 0;
  const UiAsset* assets = UiAssets(&n);
  ASSERT_GE(n, 6u);
  for (size_t i = 0; i < n; ++i) {
    const UiAsset& a = assets[i];
    SCOPED_TRACE(std::string(a.path));
    EXPECT_EQ(a.path.rfind("/ui/", 0), 0u);
    ASSERT_FALSE(a.body.empty());
    const std::string_view ext = a.path.substr(a.path.rfind('.'));
    const std::string_view want = ext == ".html" ? "text/html; charset=utf-8"
                                  : ext == ".css" ? "text/css; charset=utf-8"
                                  : ext == ".js"  ? "text/javascript; charset=utf-8"
                                                  : "?";
    EXPECT_EQ(a.content_type, want);
    ASSERT_EQ(a.etag.size(), 22u);
    EXPECT_EQ(a.etag.front(), '"');
    EXPECT_EQ(a.etag.back(), '"');
    ASSERT_FALSE(a.gzip.empty());  // text compresses
    EXPECT_LT(a.gzip.size(), a.body.size());
    std::string inflated;
    ASSERT_TRUE(http::Inflate(http::ContentCoding::kGzip, a.gzip, 1 << 24, &inflated).ok());
    EXPECT_EQ(inflated, a.body);
    EXPECT_EQ(FindUiAsset(a.path), &a);
  }
}

TEST(UiAssets, TotalSizeStaysUnderTheBound) {
  EXPECT_GT(UiAssetsTotalBytes(), 0u);
  EXPECT_LE(UiAssetsTotalBytes(), kMaxTotalBytes);
}

TEST(UiAssets, FindIsExact) {
  EXPECT_NE(FindUiAsset("/ui/index.html"), nullptr);
  EXPECT_EQ(FindUiAsset("/ui/INDEX.html"), nullptr);
  EXPECT_EQ(FindUiAsset("/ui/index.html/"), nullptr);
  EXPECT_EQ(FindUiAsset("/ui/../ui/index.html"), nullptr);
  EXPECT_EQ(FindUiAsset(""), nullptr);
}

TEST(EtagMatches, ListsWildcardAndWeakTags) {
  const std::string_view tag = "\"abc\"";
  EXPECT_TRUE(EtagMatches("\"abc\"", tag));
  EXPECT_TRUE(EtagMatches("*", tag));
  EXPECT_TRUE(EtagMatches("W/\"abc\"", tag));
  EXPECT_TRUE(EtagMatches("\"x\", \"abc\"", tag));
  EXPECT_TRUE(EtagMatches("\"x\",\t W/\"abc\" ", tag));
  EXPECT_FALSE(EtagMatches("", tag));
  EXPECT_FALSE(EtagMatches("abc", tag));
  EXPECT_FALSE(EtagMatches("\"abcd\"", tag));
  EXPECT_FALSE(EtagMatches(",,,", tag));
  EXPECT_FALSE(EtagMatches("W/", tag));
}

TEST(UiAssetReply, PlainGzipAndNotModified) {
  const UiAsset* a = FindUiAsset("/ui/app.js");
  ASSERT_NE(a, nullptr);

  const http::Reply plain = UiAssetReply(*a, "", false);
  EXPECT_EQ(plain.status, 200);
  EXPECT_EQ(plain.body, a->body);
  EXPECT_EQ(plain.content_type, a->content_type);
  EXPECT_EQ(FindHeader(plain, "Content-Encoding"), nullptr);
  ASSERT_NE(FindHeader(plain, "ETag"), nullptr);
  EXPECT_EQ(*FindHeader(plain, "ETag"), a->etag);
  ASSERT_NE(FindHeader(plain, "Cache-Control"), nullptr);
  EXPECT_EQ(*FindHeader(plain, "Cache-Control"), "no-cache");

  const http::Reply packed = UiAssetReply(*a, "\"stale\"", true);
  EXPECT_EQ(packed.status, 200);
  EXPECT_EQ(packed.body, a->gzip);
  ASSERT_NE(FindHeader(packed, "Content-Encoding"), nullptr);
  EXPECT_EQ(*FindHeader(packed, "Content-Encoding"), "gzip");

  const http::Reply same = UiAssetReply(*a, std::string(a->etag), true);
  EXPECT_EQ(same.status, 304);
  EXPECT_TRUE(same.body.empty());
  EXPECT_TRUE(same.content_type.empty());
  EXPECT_EQ(*FindHeader(same, "ETag"), a->etag);
}

}  // namespace
}  // namespace sundial::server
