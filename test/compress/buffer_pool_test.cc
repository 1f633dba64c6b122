#include "sundial/compress/buffer_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <utility>
#include <vector>

namespace sundial::compress {
namespace {

struct Chunk {
  uint8_t* p;
  uint32_t size;
  uint8_t fill;
};

void Fill(const Chunk& c) { std::memset(c.p, c.fill, BufferPool::ChunkSize(c.size)); }

bool Intact(const Chunk& c) {
  const uint32_t n = BufferPool::ChunkSize(c.size);
  return std::all_of(c.p, c.p + n, [&](uint8_t b) { return b == c.fill; });
}

TEST(BufferPool, ChunkSizeRoundsUpToTheGranule) {
  EXPECT_EQ(BufferPool::ChunkSize(1), 32u);
  EXPECT_EQ(BufferPool::ChunkSize(32), 32u);
  EXPECT_EQ(BufferPool::ChunkSize(33), 64u);
  EXPECT_EQ(BufferPool::ChunkSize(544), 544u);
  EXPECT_EQ(BufferPool::ChunkSize(545), 576u);
  EXPECT_EQ(BufferPool::ChunkSize(BufferPool::kMaxChunk), BufferPool::kMaxChunk);
  EXPECT_EQ(BufferPool::ChunkSize(BufferPool::kMaxChunk + 1), BufferPool::kMaxChunk + 1);
}

// Every chunk handed out is its own memory: filling each with its own byte
// leaves all the others intact, across sizes, slabs and reuse.
TEST(BufferPool, ChunksDoNotOverlapAndFreedOnesAreReused) {
  // Random; the seed is printed and SUNDIAL_SEED replays one.
  const char* env = std::getenv("SUNDIAL_SEED");
  const uint32_t seed = env != nullptr ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10))
                                       : std::random_device{}();
  std::printf("SUNDIAL_SEED=%u\n", seed);
  std::mt19937 rng(seed);
  BufferPool pool;
  std::vector<Chunk> live;
  for (int round = 0; round < 20000; ++round) {
    if (live.empty() || rng() % 3 != 0) {
      const uint32_t size = 1 + rng() % (rng() % 16 == 0 ? 3 * BufferPool::kMaxChunk : 600);
      Chunk c{pool.Allocate(size), size, static_cast<uint8_t>(rng())};
      Fill(c);
      live.push_back(c);
    } else {
      const size_t i = rng() % live.size();
      ASSERT_TRUE(Intact(live[i])) << "round " << round;
      pool.Free(live[i].p, live[i].size);
      live[i] = live.back();
      live.pop_back();
    }
  }
  size_t in_use = 0;
  for (const Chunk& c : live) {
    ASSERT_TRUE(Intact(c));
    in_use += BufferPool::ChunkSize(c.size);
  }
  EXPECT_EQ(pool.BytesInUse(), in_use);
  EXPECT_GE(pool.BytesHeld(), in_use);
  EXPECT_EQ(pool.BytesFree(), pool.BytesHeld() - in_use);
  for (const Chunk& c : live) pool.Free(c.p, c.size);
  EXPECT_EQ(pool.BytesInUse(), 0u);
}

// The point of the pool: once the buffers of one size are freed, whatever
// the order and whatever stays allocated in other sizes, their slabs go
// back (one empty slab per size is kept).
TEST(BufferPool, SlabsWhoseChunksAreAllFreeAreReleased) {
  BufferPool pool;
  std::vector<uint8_t*> big, small;
  // Interleaved as page buffers are: 20,000 full-size and 20,000 small.
  for (int i = 0; i < 20000; ++i) {
    big.push_back(pool.Allocate(544));
    small.push_back(pool.Allocate(64));
  }
  const size_t slabs = pool.SlabCount();
  EXPECT_GE(slabs, 20000u * 544 / BufferPool::kSlabSize + 20000u * 64 / BufferPool::kSlabSize);
  EXPECT_GE(pool.BytesHeld(), 20000u * (544 + 64));
  std::shuffle(big.begin(), big.end(), std::mt19937(1));
  for (uint8_t* p : big) pool.Free(p, 544);
  // Only the slabs of the small buffers, plus one empty one of size 544.
  const size_t small_slabs = (20000 + 1022) / 1023;
  EXPECT_EQ(pool.SlabCount(), small_slabs + 1);
  EXPECT_LE(pool.BytesHeld(), 20000u * 64 + (small_slabs + 1) * 64 + 544 * 120);
  EXPECT_EQ(pool.BytesInUse(), 20000u * 64);
  // Freed chunks are reused before a slab is added.
  for (int i = 0; i < 1000; ++i) pool.Free(small[i], 64);
  const size_t before = pool.SlabCount();
  for (int i = 0; i < 1000; ++i) small[i] = pool.Allocate(64);
  EXPECT_EQ(pool.SlabCount(), before);
  for (uint8_t* p : small) pool.Free(p, 64);
  EXPECT_EQ(pool.BytesInUse(), 0u);
  EXPECT_LE(pool.SlabCount(), 2u);
}

TEST(BufferPool, LargeBuffersComeFromTheHeapAndAreCounted) {
  BufferPool pool;
  uint8_t* p = pool.Allocate(BufferPool::kMaxChunk + 100);
  std::memset(p, 7, BufferPool::kMaxChunk + 100);
  EXPECT_EQ(pool.SlabCount(), 0u);
  EXPECT_EQ(pool.BytesInUse(), BufferPool::kMaxChunk + 100);
  EXPECT_EQ(pool.BytesHeld(), BufferPool::kMaxChunk + 100);
  pool.Free(p, BufferPool::kMaxChunk + 100);
  EXPECT_EQ(pool.BytesHeld(), 0u);
}

TEST(BufferPool, ThreadsShareOnePool) {
  BufferPool pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      std::mt19937 rng(100 + t);
      std::vector<Chunk> mine;
      for (int i = 0; i < 20000; ++i) {
        if (mine.size() < 200 && rng() % 2 == 0) {
          const uint32_t size = 1 + rng() % 544;
          Chunk c{pool.Allocate(size), size, static_cast<uint8_t>(t * 50 + i)};
          Fill(c);
          mine.push_back(c);
        } else if (!mine.empty()) {
          const Chunk c = mine.back();
          mine.pop_back();
          ASSERT_TRUE(Intact(c));
          pool.Free(c.p, c.size);
        }
      }
      for (const Chunk& c : mine) pool.Free(c.p, c.size);
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(pool.BytesInUse(), 0u);
}

}  // namespace
}  // namespace sundial::compress
