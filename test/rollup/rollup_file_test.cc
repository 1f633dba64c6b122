#include "sundial/rollup/rollup_file.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <map>

#include "test_util.h"

namespace sundial::rollup {
namespace {

constexpr Timestamp kDay = 19000 * kDayMs;

double RandomValue(std::mt19937_64& rng) {
  switch (rng() % 8) {
    case 0: return static_cast<double>(static_cast<int64_t>(rng() % 100000) - 50000);
    case 1: return static_cast<double>(static_cast<int64_t>(rng() % 100000) - 50000) / 100;
    case 2: return std::ldexp(static_cast<double>(rng()), -static_cast<int>(rng() % 80));
    case 3: return std::nan("");
    case 4: return -0.0;
    case 5: return std::numeric_limits<double>::infinity();
    case 6: return static_cast<double>(static_cast<int64_t>(rng() % 1000)) / 1000;
    default: return static_cast<double>(rng() >> 8);  // up to 2^56
  }
}

std::vector<HourStats> RandomHours(std::mt19937_64& rng, Timestamp day) {
  std::vector<HourStats> out;
  for (int h = 0; h < 24; ++h) {
    if (rng() % 3 == 0) continue;
    HourStats s;
    s.hour = day + h * kHourMs;
    const int n = 1 + static_cast<int>(rng() % 20);
    Timestamp t = s.hour + static_cast<Timestamp>(rng() % 1000);
    for (int i = 0; i < n && t < s.hour + kHourMs; ++i) {
      s.Add(t, RandomValue(rng));
      t += 1 + static_cast<Timestamp>(rng() % 200000);
    }
    out.push_back(s);
  }
  return out;
}

void ExpectSame(const std::vector<HourStats>& a, const std::vector<HourStats>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i].SameAs(b[i])) << "record " << i;
}

TEST(RollupBlock, RoundTripsEveryKindOfValue) {
  std::mt19937_64 rng(testing::TestSeed());
  for (int round = 0; round < 500; ++round) {
    std::vector<HourStats> hours = RandomHours(rng, kDay);
    if (hours.empty()) continue;
    std::string block;
    EncodeBlock(42 + round, kDay, hours, &block);
    SeriesId id = 0;
    std::vector<HourStats> back;
    ASSERT_TRUE(DecodeBlock(block, kDay, &id, &back).ok()) << "round " << round;
    EXPECT_EQ(id, static_cast<SeriesId>(42 + round));
    ExpectSame(hours, back);
  }
}

TEST(RollupBlock, RegularIntegerDataIsSmall) {
  std::vector<HourStats> hours;
  for (int h = 0; h < 24; ++h) {
    HourStats s;
    s.hour = kDay + h * kHourMs;
    for (int i = 0; i < 360; ++i) s.Add(s.hour + i * 10000, 1000 + h + (i % 7));
    hours.push_back(s);
  }
  std::string block;
  EncodeBlock(7, kDay, hours, &block);
  // 360 points per hour: well under 0.1 byte per raw point.
  EXPECT_LT(block.size(), 24u * 36u);
}

TEST(RollupBlock, DecimalDataIsSmall) {
  std::mt19937_64 rng(testing::TestSeed());
  std::vector<HourStats> hours;
  double v = 50;
  for (int h = 0; h < 24; ++h) {
    HourStats s;
    s.hour = kDay + h * kHourMs;
    for (int i = 0; i < 360; ++i) {
      v = std::round((v + static_cast<double>(static_cast<int>(rng() % 201) - 100) / 100) * 100) / 100;
      s.Add(s.hour + i * 10000, v);
    }
    hours.push_back(s);
  }
  std::string block;
  EncodeBlock(7, kDay, hours, &block);
  SeriesId id = 0;
  std::vector<HourStats> back;
  ASSERT_TRUE(DecodeBlock(block, kDay, &id, &back).ok());
  ExpectSame(hours, back);
  // A 2-decimal random walk: the sum is the only inexact field.
  EXPECT_LT(block.size(), 24u * 22u) << block.size();

}

TEST(RollupBlock, RejectsDamagedInputWithoutCrashing) {
  std::mt19937_64 rng(testing::TestSeed());
  std::vector<HourStats> hours = RandomHours(rng, kDay);
  if (hours.empty()) hours.push_back(HourStats{});
  hours[0].hour = kDay;
  if (hours[0].count == 0) hours[0].Add(kDay, 1);
  std::string block;
  EncodeBlock(1, kDay, hours, &block);
  SeriesId id;
  std::vector<HourStats> out;
  for (size_t cut = 0; cut < block.size(); ++cut) {
    EXPECT_FALSE(DecodeBlock(std::string_view(block).substr(0, cut), kDay, &id, &out).ok());
  }
  for (int i = 0; i < 2000; ++i) {
    std::string bad = block;
    bad[rng() % bad.size()] = static_cast<char>(rng());
    (void)DecodeBlock(bad, kDay, &id, &out);  // any answer, no crash
  }
}

TEST(DayFile, WritesAndReadsBack) {
  const auto env = NewPosixEnv();
  testing::TempDir dir;
  std::mt19937_64 rng(testing::TestSeed());
  const std::string path = dir.path() + "/" + DayFileName(kDay);
  std::map<SeriesId, std::vector<HourStats>> want;
  DayFileWriter w;
  ASSERT_TRUE(w.Open(env.get(), path, kDay).ok());
  for (SeriesId id = 0; id < 300; id += 1 + static_cast<SeriesId>(rng() % 4)) {
    auto hours = RandomHours(rng, kDay);
    if (hours.empty()) continue;
    ASSERT_TRUE(w.Add(id, hours).ok());
    want[id] = hours;
  }
  ASSERT_TRUE(w.Finish().ok());
  std::unique_ptr<DayFileReader> r;
  ASSERT_TRUE(DayFileReader::Open(env.get(), path, kDay, &r).ok());
  EXPECT_EQ(r->ids().size(), want.size());
  for (SeriesId id = 0; id < 310; ++id) {
    std::vector<HourStats> got;
    ASSERT_TRUE(r->Read(id, &got).ok());
    auto it = want.find(id);
    if (it == want.end()) {
      EXPECT_TRUE(got.empty());
    } else {
      ExpectSame(it->second, got);
    }
  }
  std::unique_ptr<DayFileReader> wrong_day;
  EXPECT_TRUE(DayFileReader::Open(env.get(), path, kDay + kDayMs, &wrong_day).IsCorruption());
}

TEST(DayFile, EmptyFileIsValid) {
  const auto env = NewPosixEnv();
  testing::TempDir dir;
  const std::string path = dir.path() + "/x.rlp";
  DayFileWriter w;
  ASSERT_TRUE(w.Open(env.get(), path, kDay).ok());
  ASSERT_TRUE(w.Finish().ok());
  std::unique_ptr<DayFileReader> r;
  ASSERT_TRUE(DayFileReader::Open(env.get(), path, kDay, &r).ok());
  EXPECT_TRUE(r->ids().empty());
}

TEST(DayFile, DetectsDamage) {
  const auto env = NewPosixEnv();
  testing::TempDir dir;
  std::mt19937_64 rng(testing::TestSeed());
  const std::string path = dir.path() + "/d.rlp";
  DayFileWriter w;
  ASSERT_TRUE(w.Open(env.get(), path, kDay).ok());
  for (SeriesId id = 0; id < 20; ++id) {
    auto hours = RandomHours(rng, kDay);
    if (!hours.empty()) {
      ASSERT_TRUE(w.Add(id, hours).ok());
    }
  }
  ASSERT_TRUE(w.Finish().ok());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (int i = 0; i < 300; ++i) {
    std::string bad = bytes;
    const size_t at = rng() % bad.size();
    bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
    if (rng() % 4 == 0) bad.resize(rng() % bad.size());
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out.write(bad.data(), static_cast<std::streamsize>(bad.size()));
    }
    std::unique_ptr<DayFileReader> r;
    Status s = DayFileReader::Open(env.get(), path, kDay, &r);
    if (!s.ok()) continue;
    // A flipped byte inside a block must show when that block is read.
    bool any_bad = false;
    for (SeriesId id : r->ids()) {
      std::vector<HourStats> got;
      if (!r->Read(id, &got).ok()) any_bad = true;
    }
    if (bad.size() == bytes.size()) {
      EXPECT_TRUE(any_bad) << "flip at " << at;
    }
  }
}

TEST(DayFile, NamesRoundTrip) {
  Timestamp d = 0;
  EXPECT_TRUE(ParseDayFileName(DayFileName(kDay), &d));
  EXPECT_EQ(d, kDay);
  EXPECT_TRUE(ParseDayFileName(DayFileName(-kDayMs), &d));
  EXPECT_EQ(d, -kDayMs);
  EXPECT_FALSE(ParseDayFileName("123.rlp", &d));
  EXPECT_FALSE(ParseDayFileName("abc.rlp", &d));
  EXPECT_FALSE(ParseDayFileName(DayFileName(kDay) + ".tmp", &d));
}

}  // namespace
}  // namespace sundial::rollup
