#include "sundial/net/line_framer.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace sundial::net {
namespace {

// Feeds `data` in reads of at most `chunk` bytes and collects every line run.
std::string FeedAll(LineFramer* f, const std::string& data, size_t chunk, bool* too_long) {
  std::string lines;
  size_t pos = 0;
  *too_long = false;
  while (pos < data.size()) {
    size_t n = std::min({chunk, data.size() - pos, f->write_size()});
    EXPECT_GT(n, 0u);
    memcpy(f->write_data(), data.data() + pos, n);
    pos += n;
    if (f->Commit(n) == LineFramer::Result::kLineTooLong) {
      *too_long = true;
      return lines;
    }
    std::string_view got = f->CompleteLines();
    if (!got.empty()) {
      EXPECT_EQ(got.back(), '\n');
    }
    lines.append(got);
    f->ConsumeCompleteLines();
  }
  return lines;
}

TEST(LineFramer, SplitsCompleteLinesAndKeepsPartial) {
  LineFramer f(1024, 64);
  ASSERT_EQ(f.Append("put a 1 2 x=y\nversion\r\nhel"), LineFramer::Result::kOk);
  EXPECT_EQ(f.CompleteLines(), "put a 1 2 x=y\nversion\r\n");
  EXPECT_EQ(f.partial_size(), 3u);
  f.ConsumeCompleteLines();
  EXPECT_EQ(f.CompleteLines(), "");
  ASSERT_EQ(f.Append("p\n"), LineFramer::Result::kOk);
  EXPECT_EQ(f.CompleteLines(), "help\n");
}

TEST(LineFramer, OverLongPartialLineIsRejected) {
  LineFramer f(100, 64);
  std::string data(101, 'x');
  bool too_long = false;
  FeedAll(&f, data, 16, &too_long);
  EXPECT_TRUE(too_long);
}

TEST(LineFramer, LineAtTheLimitIsAccepted) {
  LineFramer f(100, 64);
  std::string line(100, 'x');
  bool too_long = false;
  std::string got = FeedAll(&f, line + "\n" + line + "\n", 7, &too_long);
  EXPECT_FALSE(too_long);
  EXPECT_EQ(got, line + "\n" + line + "\n");
}

TEST(LineFramer, FinishPartialLineAtEndOfStream) {
  LineFramer f(1024, 64);
  ASSERT_EQ(f.Append("version"), LineFramer::Result::kOk);
  EXPECT_EQ(f.CompleteLines(), "");
  ASSERT_TRUE(f.FinishPartialLine());
  EXPECT_EQ(f.CompleteLines(), "version\n");
  f.ConsumeCompleteLines();
  EXPECT_FALSE(f.FinishPartialLine());
}

TEST(LineFramer, RandomChunkingPreservesBytes) {
  unsigned seed = std::random_device{}();
  if (const char* s = std::getenv("SUNDIAL_SEED")) seed = static_cast<unsigned>(std::atoi(s));
  SCOPED_TRACE("SUNDIAL_SEED=" + std::to_string(seed));
  std::mt19937 rng(seed);
  std::string data;
  for (int i = 0; i < 2000; ++i) {
    data.append(rng() % 300, static_cast<char>('a' + rng() % 26));
    data += (rng() % 4 == 0) ? "\r\n" : "\n";
  }
  for (size_t chunk : {1u, 3u, 64u, 1000u, 70000u}) {
    for (size_t max_read : {0u, 1024u}) {
      LineFramer f(512, 128, max_read);
      bool too_long = false;
      EXPECT_EQ(FeedAll(&f, data, chunk, &too_long), data) << "chunk " << chunk;
      EXPECT_FALSE(too_long);
    }
  }
}

TEST(LineFramer, ReadSizeGrowsOnlyWhileReadsFillTheRoom) {
  const std::string line = std::string(99, 'x') + "\n";
  std::string data;
  for (int i = 0; i < 200; ++i) data += line;
  // Reads smaller than the room: the read size stays.
  LineFramer slow(1024, 256, 4096);
  bool too_long = false;
  EXPECT_EQ(FeedAll(&slow, data, 100, &too_long), data);
  EXPECT_EQ(slow.read_size(), 256u);
  // Reads that fill the room: it doubles up to the maximum, not beyond.
  LineFramer busy(1024, 256, 4096);
  EXPECT_EQ(FeedAll(&busy, data, 1u << 20, &too_long), data);
  EXPECT_FALSE(too_long);
  EXPECT_EQ(busy.read_size(), 4096u);
  EXPECT_GE(busy.write_size(), 4096u / 2);
  // Without a larger maximum it never grows.
  LineFramer fixed(1024, 256);
  EXPECT_EQ(FeedAll(&fixed, data, 1u << 20, &too_long), data);
  EXPECT_EQ(fixed.read_size(), 256u);
}

}  // namespace
}  // namespace sundial::net
