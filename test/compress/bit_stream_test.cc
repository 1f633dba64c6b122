#include "sundial/compress/bit_stream.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "compress/test_util.h"

namespace sundial::compress {
namespace {

TEST(BitStream, RoundTripsRandomWidths) {
  std::mt19937_64 rng(TestSeed());
  std::vector<uint8_t> buf(4096 + 16, 0);
  std::vector<std::pair<uint64_t, int>> items;
  BitWriter w(buf.data(), 0);
  while (w.pos() + 64 <= 4096 * 8) {
    const int n = static_cast<int>(rng() % 58);
    const uint64_t v = rng() & LowBits(n);
    items.emplace_back(v, n);
    w.Write(v, n);
  }
  BitReader r(buf.data(), (w.pos() + 7) / 8);
  for (const auto& [v, n] : items) ASSERT_EQ(r.Read(n), v);
  EXPECT_FALSE(r.overrun());
}

TEST(BitStream, LsbFirstLayout) {
  uint8_t buf[16] = {};
  BitWriter w(buf, 0);
  w.Write(0x1, 1);
  w.Write(0x0, 2);
  w.Write(0x1f, 5);
  EXPECT_EQ(buf[0], 0xf9);
  w.Write64(0x0123456789abcdefull);
  BitReader r(buf, 9);
  EXPECT_EQ(r.Read(8), 0xf9u);
  EXPECT_EQ(r.Read64(), 0x0123456789abcdefull);
  EXPECT_FALSE(r.overrun());
  r.Skip(1);
  EXPECT_TRUE(r.overrun());
}

TEST(BitStream, TruncateAndOverwrite) {
  uint8_t buf[32] = {};
  BitWriter w(buf, 0);
  w.Write(0x3ff, 10);
  w.Write(0xabc, 12);
  w.Truncate(13);
  EXPECT_EQ(w.pos(), 13u);
  w.Write(0, 9);
  BitReader r(buf, 3);
  EXPECT_EQ(r.Read(10), 0x3ffu);
  EXPECT_EQ(r.Read(3), 0xabcu & 7);
  EXPECT_EQ(r.Read(9), 0u);
  w.Overwrite(4, 0x5, 4);
  BitReader r2(buf, 3);
  EXPECT_EQ(r2.Read(4), 0xfu);
  EXPECT_EQ(r2.Read(4), 0x5u);
  EXPECT_EQ(r2.Read(2), 0x3u);
}

TEST(BitStream, ReaderNeverReadsPastSpan) {
  // A 3-byte span inside a larger buffer: bits past it read as zero.
  uint8_t buf[16];
  for (auto& b : buf) b = 0xff;
  BitReader r(buf, 3);
  EXPECT_EQ(r.Read(24), 0xffffffu);
  EXPECT_EQ(r.Read(20), 0u);
  EXPECT_TRUE(r.overrun());
}

}  // namespace
}  // namespace sundial::compress
