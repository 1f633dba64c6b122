#include "sundial/ingest/series_cache.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

namespace sundial::ingest {
namespace {

TEST(SeriesCache, FindsWhatWasInserted) {
  SeriesCache cache(100);
  EXPECT_EQ(cache.Find("m", "host=a"), kInvalidSeriesId);
  cache.Insert("m", "host=a", 7);
  EXPECT_EQ(cache.Find("m", "host=a"), 7u);
  EXPECT_EQ(cache.Find("m", "host=b"), kInvalidSeriesId);
  EXPECT_EQ(cache.Find("mm", "host=a"), kInvalidSeriesId);
  // The split between metric and tags is part of the key.
  EXPECT_EQ(cache.Find("", "mhost=a"), kInvalidSeriesId);
  cache.Insert("", "", 8);
  EXPECT_EQ(cache.Find("", ""), 8u);
  EXPECT_EQ(cache.Find("m", "host=a"), 7u);
}

TEST(SeriesCache, PredictedSuccessorIsCheckedInFull) {
  SeriesCache cache(100);
  cache.Insert("cpu", "host=a", 1);
  cache.Insert("mem", "host=a", 2);
  cache.Insert("dsk", "host=a", 3);
  cache.Insert("cpu", "host=b", 4);
  for (int round = 0; round < 3; ++round) {  // the order the links learnt
    EXPECT_EQ(cache.Find("cpu", "host=a"), 1u);
    EXPECT_EQ(cache.Find("mem", "host=a"), 2u);
    EXPECT_EQ(cache.Find("dsk", "host=a"), 3u);
    EXPECT_EQ(cache.Find("cpu", "host=b"), 4u);
  }
  // Off the learnt order: same length metric, other tagset, unknown keys.
  EXPECT_EQ(cache.Find("cpu", "host=a"), 1u);
  EXPECT_EQ(cache.Find("dsk", "host=a"), 3u);
  EXPECT_EQ(cache.Find("cpu", "host=a"), 1u);
  EXPECT_EQ(cache.Find("mem", "host=b"), kInvalidSeriesId);
  EXPECT_EQ(cache.Find("cpu", "host=b"), 4u);
  EXPECT_EQ(cache.Find("cpu", "host=a"), 1u);
  EXPECT_EQ(cache.Find("mex", "host=a"), kInvalidSeriesId);
  EXPECT_EQ(cache.Find("mem", "host=a"), 2u);
}

TEST(SeriesCache, AgreesWithAMapOnRandomKeys) {
  const char* env = std::getenv("SUNDIAL_SEED");
  const unsigned seed = env ? static_cast<unsigned>(std::strtoul(env, nullptr, 10)) : 7u;
  std::printf("SUNDIAL_SEED=%u\n", seed);
  std::mt19937 rng(seed);
  SeriesCache cache(300);  // small: it starts over several times
  std::map<std::pair<std::string, std::string>, SeriesId> model;
  SeriesId next = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string metric = "m" + std::to_string(rng() % 40);
    const std::string tags = "host=h" + std::to_string(rng() % 30) + (rng() % 2 ? " dc=x" : "");
    const SeriesId got = cache.Find(metric, tags);
    const auto it = model.find({metric, tags});
    if (got != kInvalidSeriesId) {
      ASSERT_NE(it, model.end());
      ASSERT_EQ(got, it->second);
      continue;
    }
    const SeriesId id = it != model.end() ? it->second : next++;
    model[{metric, tags}] = id;
    cache.Insert(metric, tags, id);
    ASSERT_EQ(cache.Find(metric, tags), id);
    ASSERT_LE(cache.size(), 300u);
  }
}

}  // namespace
}  // namespace sundial::ingest
