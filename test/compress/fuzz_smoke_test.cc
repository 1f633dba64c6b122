// A short, unguided fuzz run of every compress fuzz target inside the unit
// tests: random bytes, random mutations of real pages, and truncations.
// The coverage-guided libFuzzer runs are described in README.md.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "compress/fuzz_targets.h"
#include "compress/test_util.h"

namespace sundial::compress {
namespace {

std::vector<uint8_t> RandomBytes(std::mt19937* rng, size_t max) {
  std::vector<uint8_t> b((*rng)() % (max + 1));
  for (auto& x : b) x = static_cast<uint8_t>((*rng)());
  return b;
}

TEST(FuzzSmoke, PageDecodeOnMutatedPages) {
  std::mt19937 rng(TestSeed());
  std::vector<std::string> seeds;
  for (int kind = 0; kind < 4; ++kind) {
    PageBuilder b;
    for (int i = 0; i < 400; ++i) {
      const Value v = kind == 0   ? Value::Int(i * 37 % 11)
                      : kind == 1 ? Value::Float(i * 0.25)
                      : kind == 2 ? Value::Float(i / 7.0)
                                  : (i % 5 ? Value::Int(i) : Value::Float(i / 3.0));
      if (!b.Append(1600000000000 + i * (kind == 3 ? 1001 : 1000), v)) break;
    }
    seeds.emplace_back(b.data());
  }
  for (const auto& p : BuildPages(JitteryMs(600, 5))) {
    if (PageIterator(p).header().frame) seeds.push_back(p);  // version 2
  }
  for (int i = 0; i < 20000; ++i) {
    std::string p = seeds[rng() % seeds.size()];
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int e = 0; e < edits; ++e) {
      p[rng() % p.size()] = static_cast<char>(rng());
    }
    if (rng() % 4 == 0) p.resize(rng() % (p.size() + 1));
    FuzzPageDecode(reinterpret_cast<const uint8_t*>(p.data()), p.size());
  }
  for (int i = 0; i < 5000; ++i) {
    auto b = RandomBytes(&rng, 600);
    if (b.size() > 1) b[0] = static_cast<uint8_t>(1 + i % 2);  // a valid version
    if (b.size() > 2) b[1] &= i % 2 ? 0xf3 : 0xf7;  // no seconds flag in version 2
    FuzzPageDecode(b.data(), b.size());
  }
}

TEST(FuzzSmoke, PageRoundTripOnRandomInput) {
  std::mt19937 rng(TestSeed());
  for (int i = 0; i < 300; ++i) {
    const auto b = RandomBytes(&rng, 4000);
    FuzzPageRoundTrip(b.data(), b.size());
  }
}

TEST(FuzzSmoke, ZstdOnRandomInput) {
  std::mt19937 rng(TestSeed());
  for (int i = 0; i < 300; ++i) {
    auto b = RandomBytes(&rng, 2000);
    if (b.size() >= 4 && rng() % 2) {  // zstd magic, to reach the frame parser
      b[0] = 0x28; b[1] = 0xb5; b[2] = 0x2f; b[3] = 0xfd;
    }
    FuzzZstd(b.data(), b.size());
  }
}

}  // namespace
}  // namespace sundial::compress
