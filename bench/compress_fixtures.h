// Deterministic data sets for the compression benchmark. Every fixture is a
// list of series; the same build always generates the same points (own
// PRNG, no std distributions, whose output differs between libraries).
#pragma once

#include <string>
#include <vector>

#include "sundial/common/types.h"

namespace sundial::bench {

struct Fixture {
  std::string name;
  std::vector<std::vector<Sample>> series;
  size_t points() const {
    size_t n = 0;
    for (const auto& s : series) n += s.size();
    return n;
  }
};

// All fixtures, about points_per_fixture points each.
std::vector<Fixture> MakeFixtures(size_t points_per_fixture);

}  // namespace sundial::bench
