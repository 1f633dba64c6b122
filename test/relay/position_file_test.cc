#include "relay/position_file.h"

#include <gtest/gtest.h>

#include "storage/test_util.h"

namespace sundial::relay {
namespace {

TEST(PositionFile, RoundTripAndDamage) {
  storage::testing::TempDir dir;
  std::unique_ptr<Env> env = NewPosixEnv();
  const std::string path = dir.path() + "/t.pos";
  PositionRecord r;
  bool found = true;
  ASSERT_TRUE(ReadPositionFile(env.get(), path, &r, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(WritePositionFile(env.get(), path, PositionRecord{{7, 1234}, 99, 5}).ok());
  ASSERT_TRUE(ReadPositionFile(env.get(), path, &r, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(r.position.segment, 7u);
  EXPECT_EQ(r.position.offset, 1234u);
  EXPECT_EQ(r.points_sent, 99u);
  EXPECT_EQ(r.points_dropped, 5u);
  std::string bytes = EncodePosition(r);
  bytes[9] ^= 1;
  EXPECT_FALSE(DecodePosition(bytes, &r));
  EXPECT_FALSE(DecodePosition(bytes.substr(0, 40), &r));
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->OpenFile(path, &f).ok());
  ASSERT_TRUE(f->Write(20, "x", 1).ok());
  EXPECT_TRUE(ReadPositionFile(env.get(), path, &r, &found).IsCorruption());
}

}  // namespace
}  // namespace sundial::relay
