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

// Reads data back as a log file; `allocated` opens it with OpenAllocated().
std::vector<std::string> ReadBack(const std::string& data, std::vector<std::string>* skipped,
                                  bool allocated = false) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  std::unique_ptr<File> f;
  EXPECT_TRUE(env->OpenFile(dir.path() + "/log", &f).ok());
  EXPECT_TRUE(f->Write(0, data.data(), data.size()).ok());
  LogReader r(f.get(), data.size(), "TESTLOG1");
  EXPECT_TRUE((allocated ? r.OpenAllocated() : r.Open()).ok());
  std::vector<std::string> out;
  uint8_t type;
  std::string_view payload;
  while (r.Next(&type, &payload)) out.emplace_back(payload);
  *skipped = r.skipped();
  return out;
}

// What LogReader::Open() says of data as a log file of the given magic.
Status OpenStatus(const std::string& data, const char* magic) {
  testing::TempDir dir;
  auto env = NewPosixEnv();
  std::unique_ptr<File> f;
  Status s = env->OpenFile(dir.path() + "/log", &f);
  if (s.ok()) s = f->Write(0, data.data(), data.size());
  if (!s.ok()) return s;
  LogReader r(f.get(), data.size(), magic);
  return r.Open();
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
  EXPECT_TRUE(OpenStatus(data, "OTHERLG1").IsCorruption());
}

// Zeros up to the next block (a record moved to the next block) and up to
// the end of the file (space allocated ahead) are not damage; whole zero
// blocks with records after them are.
TEST(RecordLog, ZeroPaddingAndZeroTailAreSkippedSilently) {
  std::string data = BuildLog(3);
  data.resize(kLogBlockSize, '\0');
  AppendLogRecord(&data, 1, "after padding");
  // A record that ends 5 bytes short of the block: fewer zeros than a
  // record header.
  AppendLogRecord(&data, 1, std::string(2 * kLogBlockSize - 5 - data.size() - 9, 'x'));
  ASSERT_EQ(data.size(), 2 * kLogBlockSize - 5);
  data.resize(2 * kLogBlockSize, '\0');
  AppendLogRecord(&data, 1, "after five");
  data.resize(3 * kLogBlockSize, '\0');
  AppendLogRecord(&data, 1, "after a block's worth");
  data.resize(data.size() + 3 * kLogBlockSize + 7, '\0');  // the tail
  std::vector<std::string> skipped;
  auto recs = ReadBack(data, &skipped);
  ASSERT_EQ(recs.size(), 7u);
  EXPECT_EQ(recs[3], "after padding");
  EXPECT_EQ(recs[5], "after five");
  EXPECT_EQ(recs[6], "after a block's worth");
  EXPECT_TRUE(skipped.empty()) << skipped[0];
}

TEST(RecordLog, ZeroedBlocksBetweenRecordsAreReported) {
  std::string data = BuildLog(3);
  data.resize(kLogBlockSize * 3, '\0');  // padding, then two whole blocks
  AppendLogRecord(&data, 1, "later");
  std::vector<std::string> skipped;
  auto recs = ReadBack(data, &skipped);
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_EQ(recs[3], "later");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("skipped 8192 bytes at offset 4096"), std::string::npos) << skipped[0];
}

// A file allocated ahead whose header never reached the disk: only zeros
// are nothing; zero blocks with records after them are reported. Open()
// still calls a zero header damage.
TEST(RecordLog, AZeroHeaderOfAnAllocatedFileWasNeverWritten) {
  const std::string zeros(3 * kLogBlockSize + 5, '\0');
  std::vector<std::string> skipped;
  EXPECT_TRUE(ReadBack(zeros, &skipped, true).empty());
  EXPECT_TRUE(skipped.empty()) << skipped[0];

  std::string later(kLogBlockSize, '\0');
  AppendLogRecord(&later, 1, "in block one");
  auto recs = ReadBack(later, &skipped, true);
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_EQ(recs[0], "in block one");
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("skipped 4096 bytes at offset 0 (zeroed blocks)"), std::string::npos)
      << skipped[0];
  EXPECT_TRUE(OpenStatus(zeros, "TESTLOG1").IsCorruption());
}

// Zeros in the middle of a block that do not reach its end are damage.
TEST(RecordLog, ZerosShortOfTheBlockEndAreReported) {
  std::string data = BuildLog(3);
  const size_t hole = data.size();
  data.resize(hole + 40, '\0');
  AppendLogRecord(&data, 1, "after");
  std::vector<std::string> skipped;
  auto recs = ReadBack(data, &skipped);
  ASSERT_EQ(recs.size(), 4u);
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_NE(skipped[0].find("skipped 40 bytes"), std::string::npos) << skipped[0];
}

}  // namespace
}  // namespace sundial::storage
