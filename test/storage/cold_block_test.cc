// Columnar cold blocks (cold_block.h): exact round trips of every kind of
// value and timestamp, and safety on damaged bytes.
#include "storage/cold_block.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "storage/test_util.h"
#include "sundial/common/coding.h"

namespace sundial::storage {
namespace {

constexpr Timestamp kStart = 1700006400000;

std::string Describe(const Sample& p) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "t=%lld %s bits=%016llx", static_cast<long long>(p.t),
                p.v.is_int() ? "int" : "float",
                static_cast<unsigned long long>(p.v.is_int()
                                                    ? static_cast<uint64_t>(p.v.int_value())
                                                    : DoubleToBits(p.v.float_value())));
  return buf;
}

// Encodes, decodes and checks every timestamp, type and value bit.
void ExpectRoundTrip(const std::vector<Sample>& points, size_t* bytes = nullptr) {
  compress::ZstdCodec zstd(12);
  std::string block;
  EncodeColdBlock(points, kStart, &zstd, &block);
  if (bytes != nullptr) *bytes = block.size();
  std::vector<Timestamp> ts;
  std::vector<Value> vs;
  const Status s = DecodeColdBlock(block, kStart, &zstd, &ts, &vs);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(ts.size(), points.size());
  ASSERT_EQ(vs.size(), points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    ASSERT_TRUE(ts[i] == points[i].t && vs[i].BitEquals(points[i].v))
        << "point " << i << ": want " << Describe(points[i]) << ", got "
        << Describe(Sample{ts[i], vs[i]});
  }
}

std::vector<Sample> Regular(size_t n, Timestamp step = 10000) {
  std::vector<Sample> p(n);
  for (size_t i = 0; i < n; ++i) p[i].t = kStart + static_cast<Timestamp>(i) * step;
  return p;
}

TEST(ColdBlock, SpecialDoublesRoundTrip) {
  const double specials[] = {0.0,
                             -0.0,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             BitsToDouble(0x7ff0000000000001ull),  // signalling NaN payload
                             BitsToDouble(0xfff8000000000123ull),  // negative NaN payload
                             std::numeric_limits<double>::denorm_min(),
                             -std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::max(),
                             -std::numeric_limits<double>::max(),
                             12.34,
                             0.1,
                             1e15,
                             1e-300};
  // Alone, among decimals (exceptions of a decimal block) and among ints.
  for (int shape = 0; shape < 3; ++shape) {
    std::vector<Sample> p = Regular(200);
    for (size_t i = 0; i < p.size(); ++i) {
      if (shape == 1) p[i].v = Value::Float(static_cast<double>(i % 97) / 100);
      if (shape == 2) p[i].v = Value::Int(static_cast<int64_t>(i) * 3);
      if (shape == 0 || i % 13 == 0) p[i].v = Value::Float(specials[i % std::size(specials)]);
    }
    SCOPED_TRACE(shape);
    ExpectRoundTrip(p);
  }
}

TEST(ColdBlock, ExtremeIntsAndTimestampsRoundTrip) {
  std::vector<Sample> p = {
      {std::numeric_limits<Timestamp>::min(), Value::Int(std::numeric_limits<int64_t>::min())},
      {-1, Value::Int(std::numeric_limits<int64_t>::max())},
      {0, Value::Int(-1)},
      {1, Value::Float(-0.0)},
      {std::numeric_limits<Timestamp>::max(), Value::Int(0)}};
  ExpectRoundTrip(p);
  ExpectRoundTrip({p[0]});
  ExpectRoundTrip({p[4]});
}

TEST(ColdBlock, RandomPointsRoundTrip) {
  std::mt19937_64 rng(testing::TestSeed(1414));
  for (int round = 0; round < 300; ++round) {
    const size_t n = 1 + rng() % 3000;
    std::vector<Sample> p(n);
    Timestamp t = kStart + static_cast<Timestamp>(rng() % 1000000);
    const Timestamp step = static_cast<Timestamp>(1 + rng() % 60000);
    const int shape = static_cast<int>(rng() % 6);
    const int scale = static_cast<int>(rng() % 16);
    int64_t walk = static_cast<int64_t>(rng() % 100000);
    for (size_t i = 0; i < n; ++i) {
      // Timestamps: mostly regular, some jitter and gaps, some not.
      const uint64_t r = rng() % 100;
      t += r < 80 ? step : r < 95 ? step + static_cast<Timestamp>(rng() % 2001) - 1000
                                  : static_cast<Timestamp>(1 + rng() % 100000000);
      p[i].t = t;
      walk += static_cast<int64_t>(rng() % 201) - 100;
      switch (shape) {
        case 0: p[i].v = Value::Float(BitsToDouble(rng())); break;  // any bits
        case 1: p[i].v = Value::Float(static_cast<double>(walk) / std::pow(10.0, scale)); break;
        case 2: p[i].v = Value::Int(walk); break;
        case 3: p[i].v = Value::Int(static_cast<int64_t>(rng())); break;
        case 4:  // a full-precision walk
          p[i].v = Value::Float(static_cast<double>(walk) +
                                static_cast<double>(rng() >> 11) * 0x1p-53);
          break;
        default:  // mixed types, decimals and exceptions
          p[i].v = rng() % 4 == 0 ? Value::Int(walk)
                   : rng() % 8 == 0 ? Value::Float(BitsToDouble(rng()))
                                    : Value::Float(static_cast<double>(walk) / 100);
      }
    }
    SCOPED_TRACE("round " + std::to_string(round) + " shape " + std::to_string(shape));
    ExpectRoundTrip(p);
    if (HasFatalFailure()) return;
  }
}

TEST(ColdBlock, RegularDecimalsAreSmall) {
  // A 2-decimal random walk every 10 s: the timestamps cost a few bytes in
  // all, each value less than a byte (one byte plane, entropy coded).
  std::mt19937_64 rng(testing::TestSeed(5));
  std::vector<Sample> p = Regular(8640);
  int64_t walk = 5000;
  for (Sample& s : p) {
    walk += static_cast<int64_t>(rng() % 201) - 100;
    s.v = Value::Float(static_cast<double>(walk) / 100);
  }
  size_t bytes = 0;
  ExpectRoundTrip(p, &bytes);
  EXPECT_LE(bytes, p.size() + 32);
  // The same as ints, and a constant: no more.
  for (Sample& s : p) s.v = Value::Int(7);
  ExpectRoundTrip(p, &bytes);
  EXPECT_LE(bytes, 32u);
}

TEST(ColdBlock, DamagedBytesFailCleanly) {
  std::mt19937_64 rng(testing::TestSeed(99));
  std::vector<Sample> p = Regular(500);
  for (size_t i = 0; i < p.size(); ++i) {
    p[i].v = i % 7 == 0 ? Value::Int(static_cast<int64_t>(i)) : Value::Float(i * 0.25);
    if (i % 11 == 0) p[i].t += 3;
  }
  compress::ZstdCodec zstd(3);
  std::string good;
  EncodeColdBlock(p, kStart, &zstd, &good);
  std::vector<Timestamp> ts;
  std::vector<Value> vs;
  EXPECT_TRUE(DecodeColdBlock("", kStart, &zstd, &ts, &vs).IsCorruption());
  EXPECT_TRUE(DecodeColdBlock(good + "x", kStart, &zstd, &ts, &vs).IsCorruption());
  EXPECT_TRUE(
      DecodeColdBlock(good.substr(0, good.size() - 1), kStart, &zstd, &ts, &vs).IsCorruption());
  for (int i = 0; i < 5000; ++i) {
    std::string s = good;
    testing::Mutate(&s, &rng);
    const Status st = DecodeColdBlock(s, kStart, &zstd, &ts, &vs);
    EXPECT_TRUE(st.ok() || st.IsCorruption());
    if (st.ok()) {
      EXPECT_LE(ts.size(), kMaxColdBlockPoints);
      EXPECT_EQ(ts.size(), vs.size());
    }
  }
  // A point count above the limit is refused before anything is allocated.
  std::string big;
  PutVarint32(&big, kMaxColdBlockPoints + 1);
  EXPECT_TRUE(DecodeColdBlock(big + good.substr(2), kStart, &zstd, &ts, &vs).IsCorruption());
}

}  // namespace
}  // namespace sundial::storage
