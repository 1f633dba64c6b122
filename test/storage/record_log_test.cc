#include "storage/record_log.h"

#include <gtest/gtest.h>

#include "storage/test_util.h"

namespace sundial::storage {
namespace {

// Writes header + records for payloads "rec<i>" * (i % 7 + 1) to path.
std::string BuildLog(int n) {
  std::string data = LogFileHeader("TESTLOG1");
  for (int i = 0; i < n; ++i) {
    std::string payload;
    for (int k = 0; k <= i % 7; ++k) payload += "rec" + std::to_string(i);
    AppendLogRecord(&data, 1, payload);
  }
  return data;
}

std::vector<std::string> ReadBack(const std::string& data, std::vector<std::string>* skipped) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  std::unique_ptr<File> f;
  EXPECT_TRUE(env->OpenFile(dir.path() + "/log", &f).ok());
  EXPECT_TRUE(f->Write(0, data.data(), data.size()).ok());
  LogReader r(f.get(), data.size(), "TESTLOG1");
  EXPECT_TRUE(r.Open().ok());
  std::vector<std::string> out;
  uint8_t type;
  std::string_view payload;
  while (r.Next(&type, &payload)) out.emplace_back(payload);
  *skipped = r.skipped();
  return out;
}

TEST(RecordLog, RoundTrip) {
  std::vector<std::string> skipped;
  auto recs = ReadBack(BuildLog(100), &skipped);
  ASSERT_EQ(recs.size(), 100u);
  EXPECT_EQ(recs[9], "rec9rec9rec9");
  EXPECT_TRUE(skipped.empty());
}

TEST(RecordLog, TornTailIsReported) {
  std::string data = BuildLog(50);
  data.resize(data.size() - 3);
  std::vector<std::string> skipped;
  auto recs = ReadBack(data, &skipped);
  EXPECT_EQ(recs.size(), 49u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("truncated"), std::string::npos);
}

TEST(RecordLog, DamageInTheMiddleLosesOnlyThoseRecords) {
  std::string data = BuildLog(50);
  data[data.size() / 2] ^= 0x40;
  std::vector<std::string> skipped;
  auto recs = ReadBack(data, &skipped);
  EXPECT_EQ(recs.size(), 49u);
  EXPECT_EQ(recs.back(), "rec49");
  EXPECT_EQ(skipped.size(), 1u);
}

TEST(RecordLog, GarbageAndWrongMagic) {
  std::string data = BuildLog(10);
  std::string garbage = data.substr(0, kLogFileHeaderSize);
  for (int i = 0; i < 5000; ++i) garbage.push_back(static_cast<char>(i * 7919));
  std::vector<std::string> skipped;
  auto recs = ReadBack(garbage + data.substr(kLogFileHeaderSize), &skipped);
  EXPECT_EQ(recs.size(), 10u);
  testing::TempDir dir;
  auto env = NewPosixEnv();
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->OpenFile(dir.path() + "/x", &f).ok());
  ASSERT_TRUE(f->Write(0, data.data(), data.size()).ok());
  LogReader r(f.get(), data.size(), "OTHERLG1");
  EXPECT_TRUE(r.Open().IsCorruption());
}

}  // namespace
}  // namespace sundial::storage
