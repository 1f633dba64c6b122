#include "storage/tagset_table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <vector>

namespace sundial::storage {
namespace {

using Pairs = std::vector<TagsetTable::UidPair>;

Pairs Read(const TagsetTable& t, uint32_t id) {
  const TagsetTable::View v = t.Get(id);
  Pairs out;
  for (uint32_t i = 0; i < v.size; ++i) out.push_back(v[i]);
  return out;
}

TEST(TagsetTable, InternFindGet) {
  TagsetTable t;
  const Pairs a = {{1, 10}, {2, 20}};
  const Pairs b = {{1, 10}, {2, 21}};
  EXPECT_EQ(t.Find(a.data(), a.size()), TagsetTable::kNone);
  const uint32_t ia = t.Intern(a.data(), a.size());
  const uint32_t ib = t.Intern(b.data(), b.size());
  const uint32_t empty = t.Intern(nullptr, 0);
  EXPECT_EQ(ia, 0u);
  EXPECT_EQ(ib, 1u);
  EXPECT_EQ(empty, 2u);
  EXPECT_EQ(t.Intern(a.data(), a.size()), ia);
  EXPECT_EQ(t.Find(b.data(), b.size()), ib);
  EXPECT_EQ(t.Find(nullptr, 0), empty);
  EXPECT_EQ(t.Find(a.data(), 1), TagsetTable::kNone);  // a prefix is another set
  EXPECT_EQ(Read(t, ia), a);
  EXPECT_EQ(Read(t, ib), b);
  EXPECT_EQ(t.Get(empty).size, 0u);
  EXPECT_EQ(t.size(), 3u);
}

// Differential: random interns and finds against std::map, through several
// index growths.
TEST(TagsetTable, RandomAgainstMap) {
  const char* env = std::getenv("SUNDIAL_TEST_SEED");
  const uint32_t seed = env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10))
                                       : std::random_device{}();
  std::printf("seed %u (set SUNDIAL_TEST_SEED to repeat)\n", seed);
  std::mt19937 rng(seed);
  TagsetTable t;
  std::map<Pairs, uint32_t> ref;
  for (int iter = 0; iter < 50000; ++iter) {
    Pairs p(rng() % 5);
    uint32_t key = 0;
    for (auto& kv : p) {
      key += 1 + rng() % 3;  // sorted by key, as SeriesDict passes them
      kv = {key, 1 + rng() % 40};
    }
    if (rng() % 3 == 0) {
      auto it = ref.find(p);
      ASSERT_EQ(t.Find(p.data(), p.size()), it == ref.end() ? TagsetTable::kNone : it->second)
          << "seed " << seed << " iter " << iter;
    } else {
      const uint32_t id = t.Intern(p.data(), p.size());
      auto [it, added] = ref.emplace(p, static_cast<uint32_t>(ref.size()));
      ASSERT_EQ(id, it->second) << "seed " << seed << " iter " << iter << " added " << added;
    }
  }
  ASSERT_EQ(t.size(), ref.size());
  for (const auto& [p, id] : ref) ASSERT_EQ(Read(t, id), p) << "seed " << seed;
}

}  // namespace
}  // namespace sundial::storage
