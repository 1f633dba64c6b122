// A short, unguided run of the rollup fuzz target inside the unit tests:
// mutations of a real day file. The coverage-guided run is
// rollup_day_file_fuzz (-DSUNDIAL_FUZZ=ON).
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz_targets.h"
#include "sundial/rollup/rollup_file.h"
#include "test_util.h"

namespace sundial::rollup {
namespace {

// The bytes of a valid day file for kFuzzDay with a few series of int,
// decimal and NaN hours.
std::string ValidDayFile(std::mt19937_64* rng) {
  const auto env = NewPosixEnv();
  testing::TempDir dir;
  const std::string path = dir.path() + "/" + DayFileName(kFuzzDay);
  DayFileWriter w;
  EXPECT_TRUE(w.Open(env.get(), path, kFuzzDay).ok());
  for (SeriesId id = 1; id <= 6; ++id) {
    std::vector<HourStats> hours;
    for (int h = 0; h < 24; h += 1 + static_cast<int>((*rng)() % 5)) {
      HourStats s;
      s.hour = kFuzzDay + h * kHourMs;
      for (int i = 0; i < 1 + static_cast<int>((*rng)() % 30); ++i) {
        const int64_t r = static_cast<int64_t>((*rng)() % 20000) - 10000;
        const double v = id % 3 == 0 ? r / 100.0 : id % 3 == 1 ? static_cast<double>(r)
                                                               : (r % 7 ? r * 0.5 : NAN);
        s.Add(s.hour + i * 10000, v);
      }
      hours.push_back(s);
    }
    EXPECT_TRUE(w.Add(id, hours).ok());
  }
  EXPECT_TRUE(w.Finish().ok());
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(RollupFuzzSmoke, DayFile) {
  std::mt19937_64 rng(testing::TestSeed());
  const std::string valid = ValidDayFile(&rng);
  ASSERT_GT(valid.size(), kRollupHeaderBytes + kRollupFooterBytes);
  FuzzDayFile(reinterpret_cast<const uint8_t*>(valid.data()), valid.size());
  for (int i = 0; i < 1000; ++i) {
    std::string s = valid;
    storage::testing::Mutate(&s, &rng);
    FuzzDayFile(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  }
}

}  // namespace
}  // namespace sundial::rollup
