#include "sundial/compress/page_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "compress/test_util.h"
#include "sundial/common/coding.h"

namespace sundial::compress {
namespace {

using Samples = std::vector<Sample>;

Value F(double d) { return Value::Float(d); }
Value I(int64_t i) { return Value::Int(i); }
Value FBits(uint64_t b) { return Value::Float(BitsToDouble(b)); }

// Encodes in pages of page_size, decodes, and checks every point bit-exact.
void ExpectRoundTrip(const Samples& in, uint32_t page_size = kDefaultPageSize,
                     bool value_dod = false) {
  const auto pages = BuildPages(in, page_size, value_dod);
  bool ok = false;
  const Samples out = ReadPages(pages, &ok);
  ASSERT_TRUE(ok);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(out[i].t, in[i].t) << "point " << i;
    ASSERT_TRUE(out[i].v.BitEquals(in[i].v))
        << "point " << i << " in " << in[i].v.AsDouble() << " int " << in[i].v.is_int()
        << " out " << out[i].v.AsDouble() << " int " << out[i].v.is_int();
  }
  for (const auto& p : pages) ASSERT_LE(p.size(), page_size);
}

Samples Regular(const std::vector<Value>& vals, Timestamp t0 = 1700000000000,
                Timestamp step = 10000) {
  Samples s;
  for (size_t i = 0; i < vals.size(); ++i) {
    s.push_back({t0 + static_cast<Timestamp>(i) * step, vals[i]});
  }
  return s;
}

TEST(PageBuilder, SpecialFloats) {
  const double inf = std::numeric_limits<double>::infinity();
  const double denorm = std::numeric_limits<double>::denorm_min();
  ExpectRoundTrip(Regular({F(0.0), F(-0.0), F(0.0), F(inf), F(-inf), F(1.5),
                           F(std::nan("")), FBits(0x7ff0000000000001ull),
                           FBits(0xfff8000000001234ull), FBits(0x7ff4000000000000ull),
                           F(denorm), F(-denorm), F(2.2250738585072009e-308),
                           F(std::numeric_limits<double>::max()),
                           F(std::numeric_limits<double>::lowest())}));
}

TEST(PageBuilder, NegativeZeroAfterDecimals) {
  ExpectRoundTrip(Regular({F(1.25), F(2.5), F(-0.0), F(0.0), F(3.75)}));
}

TEST(PageBuilder, IntExtremes) {
  const int64_t mn = std::numeric_limits<int64_t>::min();
  const int64_t mx = std::numeric_limits<int64_t>::max();
  ExpectRoundTrip(Regular({I(mn), I(mx), I(0), I(mn), I(-1), I(mx), I(mx), I(1)}));
}

TEST(PageBuilder, IntegersAbove2To53) {
  const int64_t big = (int64_t{1} << 53) + 1;
  ExpectRoundTrip(Regular({I(big), I(big + 2), I(big - 7), F(9007199254740993.0),
                           F(1e18), F(1.8446744073709552e19), F(1e300)}));
}

TEST(PageBuilder, ShortDecimalsAndTheirNeighbours) {
  ExpectRoundTrip(Regular({F(0.1 + 0.2), F(0.3), F(12.34), F(-12.34), F(0.1),
                           F(1.0 / 3.0), F(123456.789), F(0.000001), F(1e-15)}));
}

TEST(PageBuilder, SeventeenSignificantDigits) {
  ExpectRoundTrip(Regular({F(0.12345678901234567), F(1.2345678901234567e10),
                           F(9.8765432109876543e-5), F(3.1415926535897931),
                           F(2.7182818284590451)}));
}

TEST(PageBuilder, DecimalPageChoosesScale) {
  PageBuilder b;
  ASSERT_TRUE(b.Append(1000, F(12.5)));
  EXPECT_EQ(b.value_encoding(), ValueEncoding::kDecimal);
  EXPECT_EQ(b.decimal_scale(), 1);
  ASSERT_TRUE(b.Append(2000, F(12.34)));
  EXPECT_EQ(b.decimal_scale(), 2);
  ASSERT_TRUE(b.Append(3000, F(12.0)));
  EXPECT_EQ(b.decimal_scale(), 2);
  EXPECT_TRUE(b.seconds());
}

TEST(PageBuilder, MixedIntAndFloatKeepTheirTypes) {
  std::vector<Value> vals;
  std::mt19937 rng(TestSeed());
  for (int i = 0; i < 2000; ++i) {
    switch (rng() % 4) {
      case 0: vals.push_back(I(static_cast<int64_t>(rng() % 100))); break;
      case 1: vals.push_back(F(static_cast<double>(rng() % 100))); break;
      case 2: vals.push_back(F(static_cast<double>(rng() % 10000) / 100)); break;
      default: vals.push_back(F(static_cast<double>(rng()) / 7.0)); break;
    }
  }
  ExpectRoundTrip(Regular(vals));
  // Mostly ints with a float now and then, and the reverse.
  vals.clear();
  for (int i = 0; i < 2000; ++i) vals.push_back(i % 37 == 0 ? F(i + 0.5) : I(i));
  ExpectRoundTrip(Regular(vals));
  vals.clear();
  for (int i = 0; i < 2000; ++i) vals.push_back(i % 37 == 0 ? I(i) : F(i * 0.01));
  ExpectRoundTrip(Regular(vals));
}

TEST(PageBuilder, IntDeltaShiftFollowsTheData) {
  PageBuilder b;
  ASSERT_TRUE(b.Append(1000, I(1 << 20)));
  ASSERT_TRUE(b.Append(2000, I((1 << 20) + (3 << 14))));
  EXPECT_EQ(b.int_shift(), 14);
  ASSERT_TRUE(b.Append(3000, I((1 << 20) + (3 << 14) - 4096)));
  EXPECT_EQ(b.int_shift(), 12);
  // Multiples of 4096 (memory in pages) cost fewer bits than odd deltas.
  std::mt19937 rng(TestSeed());
  std::vector<Value> pages, bytes;
  int64_t v = 1 << 30;
  for (int i = 0; i < 5000; ++i) {
    v += 4096 * static_cast<int64_t>(rng() % 1001) - 4096 * 500;
    pages.push_back(I(v));
    bytes.push_back(I(v + static_cast<int64_t>(rng() % 4096)));
  }
  ExpectRoundTrip(Regular(pages));
  ExpectRoundTrip(Regular(bytes));
  EXPECT_LT(BuildPages(Regular(pages)).size() * 3, BuildPages(Regular(bytes)).size() * 2);
  // Odd deltas late in a page force a re-encode with a smaller shift.
  std::vector<Value> late;
  for (int i = 0; i < 300; ++i) late.push_back(I(i * 1024 + (i == 250 ? 1 : 0)));
  ExpectRoundTrip(Regular(late));
}

TEST(PageBuilder, SteadyCountersSwitchToDeltaOfDelta) {
  std::mt19937 rng(TestSeed());
  std::vector<Value> uptime, jiffies, walk, cents;
  int64_t j = 0, w = 0;
  for (int i = 0; i < 20000; ++i) {
    uptime.push_back(I(i * 10));
    j += 1000 + static_cast<int64_t>(rng() % 5);
    jiffies.push_back(I(j));
    w += static_cast<int64_t>(rng() % 2001) - 1000;
    walk.push_back(I(w));
    cents.push_back(F(static_cast<double>(i * 25 + (i / 1000)) / 100));
  }
  for (const auto* vals : {&uptime, &jiffies, &walk, &cents}) {
    ExpectRoundTrip(Regular(*vals), kDefaultPageSize, true);
    ExpectRoundTrip(Regular(*vals), kMinPageSize, true);
  }
  PageBuilder b(kDefaultPageSize, true);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(b.Append(i * 1000, uptime[i]));
  EXPECT_TRUE(b.value_dod());
  PageBuilder c(kDefaultPageSize, true);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(c.Append(i * 1000, walk[i]));
  EXPECT_FALSE(c.value_dod());
  PageBuilder off(kDefaultPageSize, false);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(off.Append(i * 1000, uptime[i]));
  EXPECT_FALSE(off.value_dod());
  // A steady counter costs far less than a random walk.
  EXPECT_LT(BuildPages(Regular(uptime), kDefaultPageSize, true).size() * 8,
            BuildPages(Regular(walk), kDefaultPageSize, true).size());
}

TEST(PageBuilder, LongRunsOfEqualValues) {
  for (Value v : {I(7), F(7.0), F(3.25), F(1.0 / 3.0), F(-0.0)}) {
    std::vector<Value> vals(100000, v);
    ExpectRoundTrip(Regular(vals));
    const auto pages = BuildPages(Regular(vals));
    size_t bytes = 0;
    for (const auto& p : pages) bytes += p.size();
    EXPECT_LE(static_cast<double>(bytes) / vals.size(), 0.05);
  }
}

TEST(PageBuilder, RunsInterruptedAndResumed) {
  std::vector<Value> vals;
  for (int block = 0; block < 40; ++block) {
    for (int i = 0; i < block; ++i) vals.push_back(I(block % 3));
  }
  ExpectRoundTrip(Regular(vals));
  // Equal values but changing steps, and equal steps but escaped values.
  Samples s;
  Timestamp t = 0;
  for (int i = 0; i < 3000; ++i) {
    t += (i / 50) % 2 ? 1000 : 1001;
    s.push_back({t, (i / 20) % 2 ? I(5) : F(2.5)});
  }
  ExpectRoundTrip(s);
}

TEST(PageBuilder, IrregularEqualAndBackwardTimestamps) {
  std::mt19937_64 rng(TestSeed());
  Samples s;
  Timestamp t = 1600000000123;
  for (int i = 0; i < 20000; ++i) {
    switch (rng() % 6) {
      case 0: break;                                            // equal
      case 1: t -= static_cast<Timestamp>(rng() % 100000); break;  // backward
      case 2: t += static_cast<Timestamp>(rng() % 3000000000ull); break;
      default: t += 9000 + static_cast<Timestamp>(rng() % 2000); break;
    }
    s.push_back({t, I(static_cast<int64_t>(rng() % 1000))});
  }
  ExpectRoundTrip(s);
}

TEST(PageBuilder, SecondsAndMillisecondsAndFarDates) {
  ExpectRoundTrip(Regular({I(1), I(2), I(3)}, 0, 1000));              // 1970
  ExpectRoundTrip(Regular({I(1), I(2), I(3)}, -86400000, 1000));      // 1969
  ExpectRoundTrip(Regular({I(1), I(2), I(3)}, 4102444800000, 10000));  // 2100
  ExpectRoundTrip(Regular({I(1), I(2), I(3)}, 253402300799000, 1));   // 9999
  // Whole seconds, then a millisecond time forces a millisecond page.
  Samples s = Regular({F(1.5), F(2.5), F(3.5), F(4.5)}, 1700000000000, 1000);
  s.push_back({1700000004001, F(5.5)});
  s.push_back({1700000005000, F(6.5)});
  ExpectRoundTrip(s);
  PageBuilder b;
  for (const auto& p : s) ASSERT_TRUE(b.Append(p.t, p.v));
  EXPECT_FALSE(b.seconds());
  // Extreme timestamps land in separate pages (span limit) but round-trip.
  ExpectRoundTrip({{kMinTimestamp, I(1)}, {kMaxTimestamp, I(2)},
                   {kMinTimestamp + 1, I(3)}, {0, I(4)}, {kMaxTimestamp - 999, I(5)}});
}

TEST(PageBuilder, SecondsPageCostsNoMoreThanSecondsEncoding) {
  // The same series in seconds and shifted by 1 ms: the whole-second one
  // must not be larger, and its deltas are coded in seconds.
  std::mt19937 rng(TestSeed());
  Samples secs, ms;
  Timestamp t = 1700000000000;
  for (int i = 0; i < 40; ++i) {
    t += 1000 * (10 + static_cast<Timestamp>(rng() % 3));
    secs.push_back({t, I(i)});
    ms.push_back({t + 1, I(i)});
  }
  PageBuilder a, b;
  for (size_t i = 0; i < secs.size(); ++i) {
    ASSERT_TRUE(a.Append(secs[i].t, secs[i].v));
    ASSERT_TRUE(b.Append(ms[i].t, ms[i].v));
  }
  EXPECT_TRUE(a.seconds());
  EXPECT_FALSE(b.seconds());
  EXPECT_LT(a.size(), b.size());
}

TEST(PageBuilder, FullPageRejectsAndStaysIntact) {
  PageBuilder b(128);
  std::mt19937_64 rng(TestSeed());
  Samples in;
  Timestamp t = 1000;
  for (;;) {
    const Value v = F(BitsToDouble(rng() >> 2));
    t += 1000;
    if (!b.Append(t, v)) break;
    in.push_back({t, v});
  }
  EXPECT_LE(b.size(), 128u);
  EXPECT_EQ(b.count(), in.size());
  PageIterator it(b.data());
  size_t i = 0;
  while (it.Next()) {
    ASSERT_LT(i, in.size());
    EXPECT_EQ(it.t(), in[i].t);
    EXPECT_TRUE(it.v().BitEquals(in[i].v));
    ++i;
  }
  EXPECT_TRUE(it.status().ok());
  EXPECT_EQ(i, in.size());
}

TEST(PageBuilder, HeaderTracksRange) {
  PageBuilder b;
  ASSERT_TRUE(b.Append(5000, I(1)));
  ASSERT_TRUE(b.Append(3000, I(1)));
  ASSERT_TRUE(b.Append(9000, I(1)));
  PageHeader h;
  ASSERT_TRUE(DecodePageHeader(b.data(), &h).ok());
  EXPECT_EQ(h.count, 3u);
  EXPECT_EQ(h.first_t, 5000);
  EXPECT_EQ(h.min_t, 3000);
  EXPECT_EQ(h.max_t, 9000);
  EXPECT_EQ(b.last_t(), 9000);
  EXPECT_FALSE(b.Append(9000 + static_cast<Timestamp>(kMaxPageSpanMs), I(2)));
  EXPECT_EQ(b.count(), 3u);
}

TEST(PageBuilder, ResetReusesTheBuffer) {
  PageBuilder b;
  ASSERT_TRUE(b.Append(1000, F(0.1 + 0.2)));
  b.Reset();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.size(), kPageHeaderSize);
  ASSERT_TRUE(b.Append(2000, I(3)));
  PageIterator it(b.data());
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(it.t(), 2000);
  EXPECT_TRUE(it.v().BitEquals(I(3)));
  EXPECT_FALSE(it.Next());
}

TEST(PageBuilder, RandomisedRoundTrips) {
  const uint32_t seed = TestSeed();
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 200; ++round) {
    Samples s;
    Timestamp t = static_cast<Timestamp>(rng() >> 20) - (Timestamp{1} << 42);
    double walk = static_cast<double>(rng() % 10000) / 100;
    int64_t iwalk = static_cast<int64_t>(rng() >> 1) - (int64_t{1} << 62);
    const int kind = static_cast<int>(rng() % 5);
    const int n = static_cast<int>(rng() % 3000);
    const Timestamp step = static_cast<Timestamp>(1 + rng() % 60) * ((rng() & 1) ? 1000 : 1);
    for (int i = 0; i < n; ++i) {
      const int jitter = static_cast<int>(rng() % 8);
      t += jitter == 0 ? -static_cast<Timestamp>(rng() % 100000) : jitter == 1 ? 0 : step;
      Value v;
      switch (kind) {
        case 0: iwalk += static_cast<int64_t>(rng() % 2001) - 1000; v = I(iwalk); break;
        case 1: walk = std::round((walk + (static_cast<double>(rng() % 201) - 100) / 100) * 100) / 100;
                v = F(walk); break;
        case 2: walk += static_cast<double>(rng() % 1000) / 997.0; v = F(walk); break;
        case 3: v = (rng() % 3) ? I(42) : F(42.0); break;
        default: v = F(BitsToDouble(rng())); break;
      }
      s.push_back({t, v});
    }
    ExpectRoundTrip(s, kMinPageSize << (rng() % 10), (rng() & 1) != 0);
    if (HasFatalFailure()) {
      ADD_FAILURE() << "seed " << seed << " round " << round;
      return;
    }
  }
}

// Jittery millisecond timestamps: the first page fits a frame, the pages
// after it use it (smaller), and gaps, backward and repeated steps are
// escaped.
TEST(PageBuilder, JitteryMillisecondTimestampsUseFrames) {
  const uint32_t seed = TestSeed();
  Samples in = JitteryMs(5000, seed);
  in[3000].t = in[2999].t - 5;  // backward
  in[3001].t = in[3000].t;      // repeated
  ExpectRoundTrip(in);
  const auto pages = BuildPages(in);
  ASSERT_GT(pages.size(), 10u);
  size_t frame_pages = 0;
  for (size_t i = 0; i < pages.size(); ++i) {
    PageIterator it(pages[i]);
    ASSERT_TRUE(it.status().ok());
    if (i == 0) {
      EXPECT_FALSE(it.header().frame);
    }
    if (it.header().frame) {
      ++frame_pages;
      EXPECT_FALSE(it.header().seconds);
      // Frame pages hold more points than the delta-of-delta first page.
      if (i + 1 < pages.size()) {
        EXPECT_GT(it.header().count, PageIterator(pages[0]).header().count);
      }
    }
  }
  EXPECT_GE(frame_pages + 2, pages.size());
}

// A builder whose timestamps turn regular drops the frame: the page after
// the one that shows it uses delta-of-delta codes (and runs) again.
TEST(PageBuilder, FramesEndWhenTimestampsTurnRegular) {
  Samples in = JitteryMs(1500, 7);
  const Timestamp t0 = in.back().t;
  for (int i = 1; i <= 3000; ++i) in.push_back({t0 + i * 10000, Value::Int(42)});
  ExpectRoundTrip(in);
  const auto pages = BuildPages(in);
  PageIterator last(pages.back());
  bool seen_frame = false;
  for (const auto& p : pages) seen_frame |= PageIterator(p).header().frame;
  EXPECT_TRUE(seen_frame);
  EXPECT_FALSE(last.header().frame);
  EXPECT_GT(last.header().count, 1000u);  // runs
}

// Every kind of value in frame pages, and a builder reused across series.
TEST(PageBuilder, FramePagesWithEveryValueEncoding) {
  const Samples base = JitteryMs(3000, 11);
  for (int kind = 0; kind < 4; ++kind) {
    Samples in = base;
    for (size_t i = 0; i < in.size(); ++i) {
      const auto x = static_cast<int64_t>(i);
      if (kind == 1) in[i].v = F(static_cast<double>(x % 97) / 100);
      if (kind == 2) in[i].v = F(std::sin(static_cast<double>(x)));
      if (kind == 3) in[i].v = x % 9 == 0 ? F(0.5) : I(x * 1000);
    }
    ExpectRoundTrip(in);
    ExpectRoundTrip(in, 128, true);
    ExpectRoundTrip(in, kMaxPageSize);
  }
}

// The page buffer starts small, grows with the points and goes back to its
// first size on Reset; every intermediate page is the complete page so far.
TEST(PageBuilder, BufferGrowsWithThePage) {
  PageBuilder b(kDefaultPageSize);
  EXPECT_EQ(b.capacity(), PageBuilder::kInitialCapacity);
  std::mt19937 rng(7);
  Samples in;
  uint32_t last_cap = b.capacity();
  for (int i = 0;; ++i) {
    // Mixed values force escapes and re-encodes (which take the full buffer
    // for a moment) along the way.
    const Value v = i % 7 == 3 ? F(std::sqrt(static_cast<double>(i)))
                               : i % 11 == 5 ? I(i) : F(static_cast<double>(rng() % 10000) / 100);
    const Timestamp t = 1700000000000 + 10000 * i + (i % 5 == 0 ? 1 : 0);
    if (!b.Append(t, v)) break;
    in.push_back({t, v});
    ASSERT_GE(b.capacity(), b.size() + 8);  // the last word BitWriter stored
    ASSERT_LE(b.capacity(), kDefaultPageSize + 32);
    last_cap = b.capacity();
    bool ok = false;
    const Samples out = ReadPages({std::string(b.data())}, &ok);
    ASSERT_TRUE(ok);
    ASSERT_EQ(out.size(), in.size());
    for (size_t k = 0; k < in.size(); ++k) {
      ASSERT_EQ(out[k].t, in[k].t);
      ASSERT_TRUE(out[k].v.BitEquals(in[k].v)) << "point " << k << " of " << in.size();
    }
  }
  EXPECT_EQ(last_cap, kDefaultPageSize + 32);  // a full page has the full buffer
  EXPECT_GT(b.size(), kDefaultPageSize - 64);
  b.Reset();
  EXPECT_EQ(b.capacity(), PageBuilder::kInitialCapacity);
  EXPECT_TRUE(b.empty());
  ASSERT_TRUE(b.Append(1700000000000, F(1.5)));
  EXPECT_LE(b.MemoryUsage(), sizeof(PageBuilder) + PageBuilder::kInitialCapacity);
}

// Builders whose buffers come from a pool write the same pages as builders
// on the heap, through growth, re-encodes, Reset and moves; the pool holds
// exactly their buffers, and gets them all back.
TEST(PageBuilder, PagesFromAPoolAreTheSameAsWithout) {
  BufferPool pool;
  std::mt19937 rng(11);
  Samples in = JitteryMs(3000, 5);
  for (int i = 0; i < 3000; ++i) {
    const Value v = i % 7 == 3 ? F(std::sqrt(static_cast<double>(i)))
                               : i % 11 == 5 ? I(i) : F(static_cast<double>(rng() % 10000) / 100);
    in.push_back({1800000000000 + 10000 * i, v});
  }
  for (const uint32_t page_size : {kMinPageSize, kDefaultPageSize, 5000u}) {
    const std::vector<std::string> want = BuildPages(in, page_size, true);
    std::vector<std::string> got;
    {
      std::vector<PageBuilder> builders;
      builders.emplace_back(page_size, true, &pool);
      for (const Sample& s : in) {
        PageBuilder& b = builders.back();
        if (!b.Append(s.t, s.v)) {
          got.emplace_back(b.data());
          // Move the builder now and then, as storage moves open pages.
          if (got.size() % 3 == 0) {
            PageBuilder moved = std::move(b);
            builders.push_back(std::move(moved));
          }
          builders.back().Reset();
          ASSERT_TRUE(builders.back().Append(s.t, s.v));
        }
        // Moved-from builders hold nothing.
        ASSERT_EQ(pool.BytesInUse(), BufferPool::ChunkSize(builders.back().capacity()));
      }
      got.emplace_back(builders.back().data());
    }
    EXPECT_EQ(pool.BytesInUse(), 0u);
    ASSERT_EQ(got.size(), want.size()) << "page size " << page_size;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]) << "page " << i;
  }
}

}  // namespace
}  // namespace sundial::compress
