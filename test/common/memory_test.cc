#include "sundial/common/memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace sundial {
namespace {

// RssAnon of this process in kB, or -1 where /proc has no such line.
[[maybe_unused]] long RssAnonKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stol(line.substr(8));
  }
  return -1;
}

// Freed small blocks below a live one stay resident until released.
TEST(Memory, ReleaseFreeMemoryReturnsFreedHeapPages) {
#if !defined(__GLIBC__) || defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "needs glibc's malloc";
#else
  if (RssAnonKb() < 0) GTEST_SKIP() << "no RssAnon in /proc/self/status";
  std::vector<std::unique_ptr<char[]>> blocks;
  for (int i = 0; i < 40000; ++i) {
    blocks.emplace_back(new char[1000]);
    std::fill(blocks.back().get(), blocks.back().get() + 1000, static_cast<char>(i));
  }
  std::unique_ptr<char[]> pin(new char[1000]);  // keeps the heap's top in use
  pin[0] = 1;
  const long full = RssAnonKb();
  blocks.clear();
  const long freed = RssAnonKb();
  ReleaseFreeMemory();
  const long released = RssAnonKb();
  // 40 MB were freed; at least half of it goes back once released.
  EXPECT_LT(released, freed - 20000) << "full " << full << " freed " << freed;
#endif
}

}  // namespace
}  // namespace sundial
