// Helpers shared by the compress tests.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "sundial/common/types.h"
#include "sundial/compress/page_builder.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::compress {

// The seed for a randomised test: $SUNDIAL_SEED if set, else random. Printed
// so a failure can be replayed.
inline uint32_t TestSeed() {
  const char* s = std::getenv("SUNDIAL_SEED");
  const uint32_t seed = s ? static_cast<uint32_t>(std::strtoul(s, nullptr, 10))
                          : std::random_device()();
  std::printf("SUNDIAL_SEED=%u\n", seed);
  return seed;
}

// Appends samples into pages of page_size; returns the sealed pages.
inline std::vector<std::string> BuildPages(const std::vector<Sample>& in,
                                           uint32_t page_size = kDefaultPageSize,
                                           bool value_dod = false) {
  std::vector<std::string> pages;
  PageBuilder b(page_size, value_dod);
  for (const Sample& s : in) {
    if (!b.Append(s.t, s.v)) {
      pages.emplace_back(b.data());
      b.Reset();
      if (!b.Append(s.t, s.v)) std::abort();  // first point always fits
    }
  }
  if (!b.empty()) pages.emplace_back(b.data());
  return pages;
}

// Millisecond timestamps 10 s +- 1 s apart with a gap now and then, and a
// small int walk: pages after the first use frame timestamps.
inline std::vector<Sample> JitteryMs(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Sample> out;
  Timestamp t = 1700000000123;
  int64_t v = 500;
  for (size_t i = 0; i < n; ++i) {
    t += 9000 + static_cast<Timestamp>(rng() % 2001);
    if (rng() % 100 == 0) t += static_cast<Timestamp>(rng() % 600000);
    v += static_cast<int64_t>(rng() % 11) - 5;
    out.push_back({t, Value::Int(v)});
  }
  return out;
}

// Decodes pages back into samples; *ok is false on any decode error.
inline std::vector<Sample> ReadPages(const std::vector<std::string>& pages, bool* ok) {
  std::vector<Sample> out;
  *ok = true;
  PageIterator it;
  for (const std::string& p : pages) {
    it.Reset(p);
    while (it.Next()) out.push_back(Sample{it.t(), it.v()});
    if (!it.status().ok()) *ok = false;
  }
  return out;
}

}  // namespace sundial::compress
