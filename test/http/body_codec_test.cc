#include "sundial/http/body_codec.h"

#include <zlib.h>

#include <gtest/gtest.h>

namespace sundial::http {
namespace {

std::string Deflate(const std::string& in, int window_bits) {
  z_stream zs{};
  EXPECT_EQ(deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&zs, in.size()), '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

const std::string kBody = R"([{"metric":"sys.cpu","timestamp":1,"value":2,"tags":{"h":"a"}}])";

TEST(BodyCodec, GzipRoundTrip) {
  std::string packed, out;
  ASSERT_TRUE(GzipCompress(kBody, &packed).ok());
  ASSERT_TRUE(Inflate(ContentCoding::kGzip, packed, 1 << 20, &out).ok());
  EXPECT_EQ(out, kBody);
}

TEST(BodyCodec, DeflateZlibAndRaw) {
  std::string out;
  ASSERT_TRUE(Inflate(ContentCoding::kDeflate, Deflate(kBody, 15), 1 << 20, &out).ok());
  EXPECT_EQ(out, kBody);
  ASSERT_TRUE(Inflate(ContentCoding::kDeflate, Deflate(kBody, -15), 1 << 20, &out).ok());
  EXPECT_EQ(out, kBody);
}

TEST(BodyCodec, BadAndTruncatedData) {
  std::string out;
  EXPECT_TRUE(Inflate(ContentCoding::kGzip, "not gzip at all", 1 << 20, &out).IsInvalidArgument());
  std::string packed;
  ASSERT_TRUE(GzipCompress(kBody, &packed).ok());
  EXPECT_TRUE(Inflate(ContentCoding::kGzip, packed.substr(0, packed.size() / 2), 1 << 20, &out)
                  .IsInvalidArgument());
  EXPECT_TRUE(Inflate(ContentCoding::kGzip, packed + "xx", 1 << 20, &out).IsInvalidArgument());
}

TEST(BodyCodec, OutputLimit) {
  std::string big(1 << 20, 'a'), packed, out;
  ASSERT_TRUE(GzipCompress(big, &packed).ok());
  EXPECT_TRUE(Inflate(ContentCoding::kGzip, packed, 1000, &out).IsResourceExhausted());
  EXPECT_TRUE(Inflate(ContentCoding::kGzip, packed, 1 << 20, &out).ok());
}

TEST(BodyCodec, HeaderParsing) {
  EXPECT_EQ(ParseContentCoding(""), ContentCoding::kIdentity);
  EXPECT_EQ(ParseContentCoding(" GZIP "), ContentCoding::kGzip);
  EXPECT_EQ(ParseContentCoding("snappy"), ContentCoding::kSnappy);
  EXPECT_EQ(ParseContentCoding("deflate"), ContentCoding::kDeflate);
  EXPECT_EQ(ParseContentCoding("br"), ContentCoding::kUnknown);
  EXPECT_TRUE(AcceptsGzip("gzip, deflate"));
  EXPECT_TRUE(AcceptsGzip("br;q=1.0, gzip;q=0.8"));
  EXPECT_TRUE(AcceptsGzip("*"));
  EXPECT_FALSE(AcceptsGzip("gzip;q=0"));
  EXPECT_FALSE(AcceptsGzip("deflate, br"));
  EXPECT_FALSE(AcceptsGzip(""));
}

}  // namespace
}  // namespace sundial::http
