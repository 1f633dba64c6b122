#include "sundial/storage/meta_store.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "common/fault_env.h"
#include "storage/record_log.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

using testing::TempDir;

std::unique_ptr<MetaStore> OpenOrDie(Env* env, const std::string& dir,
                                     std::vector<std::string>* warnings = nullptr) {
  std::vector<std::string> w;
  std::unique_ptr<MetaStore> m;
  EXPECT_TRUE(MetaStore::Open(env, dir, &m, warnings != nullptr ? warnings : &w).ok());
  return m;
}

std::string ReadAllFile(Env* env, const std::string& path) {
  std::string s;
  EXPECT_TRUE(env->ReadFileToString(path, &s).ok());
  return s;
}

void WriteAllFile(Env* env, const std::string& path, const std::string& data) {
  std::unique_ptr<File> f;
  ASSERT_TRUE(env->OpenFile(path, &f).ok());
  ASSERT_TRUE(f->Truncate(0).ok());
  ASSERT_TRUE(f->Write(0, data.data(), data.size()).ok());
}

TEST(MetaStore, PutGetDeleteSurviveReopen) {
  TempDir dir;
  auto env = NewPosixEnv();
  {
    auto m = OpenOrDie(env.get(), dir.path());
    ASSERT_TRUE(m->Put("a", "1").ok());
    ASSERT_TRUE(m->Put("b", "2").ok());
    ASSERT_TRUE(m->Put("a", "3").ok());
    ASSERT_TRUE(m->Delete("b").ok());
    ASSERT_TRUE(m->Put("c", std::string("\0x", 2)).ok());
  }
  auto m = OpenOrDie(env.get(), dir.path());
  std::string v;
  ASSERT_TRUE(m->Get("a", &v));
  EXPECT_EQ(v, "3");
  EXPECT_FALSE(m->Get("b", &v));
  ASSERT_TRUE(m->Get("c", &v));
  EXPECT_EQ(v, std::string("\0x", 2));
  EXPECT_EQ(m->size(), 2u);
}

TEST(MetaStore, RangeAndPrefixAreOrdered) {
  TempDir dir;
  auto env = NewPosixEnv();
  auto m = OpenOrDie(env.get(), dir.path());
  ASSERT_TRUE(m->Apply({{"x2", "b", false}, {"x1", "a", false}, {"y", "c", false}}).ok());
  const auto all = m->Prefix("x");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].first, "x1");
  EXPECT_EQ(all[1].first, "x2");
  EXPECT_EQ(m->Range("x2", "y").size(), 1u);
  EXPECT_EQ(m->Range("x", "").size(), 3u);
  EXPECT_TRUE(m->Any("x", "y"));
  EXPECT_FALSE(m->Any("y0", "z"));
}

TEST(MetaStore, RejectsBadKeysAndValuesWithoutApplyingAnything) {
  TempDir dir;
  auto env = NewPosixEnv();
  auto m = OpenOrDie(env.get(), dir.path());
  EXPECT_TRUE(m->Apply({{"ok", "1", false}, {"", "2", false}}).IsInvalidArgument());
  EXPECT_TRUE(m->Put(std::string(MetaStore::kMaxKeyBytes + 1, 'k'), "v").IsInvalidArgument());
  EXPECT_TRUE(m->Put("k", std::string(MetaStore::kMaxValueBytes + 1, 'v')).IsInvalidArgument());
  EXPECT_EQ(m->size(), 0u);
}

TEST(MetaStore, DeadRecordsAreCompactedOnOpen) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/meta.log";
  {
    auto m = OpenOrDie(env.get(), dir.path());
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(m->Put("k", std::to_string(i)).ok());
    EXPECT_EQ(m->dead_records(), 49u);
  }
  uint64_t before = 0, after = 0;
  ASSERT_TRUE(env->GetFileSize(path, &before).ok());
  auto m = OpenOrDie(env.get(), dir.path());
  ASSERT_TRUE(env->GetFileSize(path, &after).ok());
  EXPECT_LT(after, before);
  EXPECT_EQ(m->dead_records(), 0u);
  EXPECT_EQ(m->TEST_rewrites(), 1u);
  std::string v;
  ASSERT_TRUE(m->Get("k", &v));
  EXPECT_EQ(v, "49");
}

TEST(MetaStore, CompactsAtRunTimeWhenMostRecordsAreDead) {
  TempDir dir;
  auto env = NewPosixEnv();
  auto m = OpenOrDie(env.get(), dir.path());
  const uint64_t rewrites = m->TEST_rewrites();
  for (size_t i = 0; i <= MetaStore::kCompactMinDead; ++i) {
    ASSERT_TRUE(m->Put("k", std::to_string(i)).ok());
  }
  EXPECT_GT(m->TEST_rewrites(), rewrites);
  EXPECT_LT(m->dead_records(), MetaStore::kCompactMinDead);
  auto again = OpenOrDie(env.get(), dir.path());
  std::string v;
  ASSERT_TRUE(again->Get("k", &v));
  EXPECT_EQ(v, std::to_string(MetaStore::kCompactMinDead));
}

TEST(MetaStore, TornTailAndDamagedRecordLoseOnlyThemselves) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/meta.log";
  {
    auto m = OpenOrDie(env.get(), dir.path());
    ASSERT_TRUE(m->Put("a", "1").ok());
    ASSERT_TRUE(m->Put("b", "2").ok());
    ASSERT_TRUE(m->Put("c", "3").ok());
  }
  std::string data = ReadAllFile(env.get(), path);
  // Damage the payload of the middle record ("b") and tear the last one.
  const size_t b_at = data.find("b2");
  ASSERT_NE(b_at, std::string::npos);
  data[b_at + 1] = 'X';
  data.resize(data.size() - 1);
  WriteAllFile(env.get(), path, data);
  std::vector<std::string> warnings;
  auto m = OpenOrDie(env.get(), dir.path(), &warnings);
  EXPECT_FALSE(warnings.empty());
  std::string v;
  EXPECT_TRUE(m->Get("a", &v));
  EXPECT_FALSE(m->Get("b", &v));
  EXPECT_FALSE(m->Get("c", &v));
  // The damaged file was rewritten: new records follow valid ones.
  ASSERT_TRUE(m->Put("d", "4").ok());
  m.reset();
  warnings.clear();
  m = OpenOrDie(env.get(), dir.path(), &warnings);
  EXPECT_TRUE(warnings.empty());
  EXPECT_TRUE(m->Get("a", &v));
  EXPECT_TRUE(m->Get("d", &v));
}

TEST(MetaStore, DamagedHeaderKeepsRecords) {
  TempDir dir;
  auto env = NewPosixEnv();
  const std::string path = dir.path() + "/meta.log";
  {
    auto m = OpenOrDie(env.get(), dir.path());
    ASSERT_TRUE(m->Put("a", "1").ok());
  }
  std::string data = ReadAllFile(env.get(), path);
  data[0] = 'X';
  WriteAllFile(env.get(), path, data);
  std::vector<std::string> warnings;
  auto m = OpenOrDie(env.get(), dir.path(), &warnings);
  EXPECT_FALSE(warnings.empty());
  std::string v;
  EXPECT_TRUE(m->Get("a", &v));
}

TEST(MetaStore, FailedWriteAppliesNothing) {
  TempDir dir;
  sundial::testing::FaultInjectionEnv env(NewPosixEnv());
  auto m = OpenOrDie(&env, dir.path());
  ASSERT_TRUE(m->Put("a", "1").ok());
  env.SetFailWrites(true);
  EXPECT_FALSE(m->Put("b", "2").ok());
  EXPECT_FALSE(m->Delete("a").ok());
  env.SetFailWrites(false);
  std::string v;
  EXPECT_FALSE(m->Get("b", &v));
  EXPECT_TRUE(m->Get("a", &v));
  ASSERT_TRUE(m->Put("c", "3").ok());
  m.reset();
  auto again = OpenOrDie(&env, dir.path());
  EXPECT_TRUE(again->Get("a", &v));
  EXPECT_FALSE(again->Get("b", &v));
  EXPECT_TRUE(again->Get("c", &v));
}

TEST(MetaStore, DecodeRejectsMalformedRecords) {
  MetaStore::Op op;
  EXPECT_FALSE(DecodeMetaRecord(1, "", &op));
  EXPECT_FALSE(DecodeMetaRecord(1, std::string("\x05" "ab", 3), &op));  // length past the end
  EXPECT_FALSE(DecodeMetaRecord(2, "", &op));
  EXPECT_FALSE(DecodeMetaRecord(9, "k", &op));
  ASSERT_TRUE(DecodeMetaRecord(1, std::string("\x01" "kv", 3), &op));
  EXPECT_EQ(op.key, "k");
  EXPECT_EQ(op.value, "v");
  EXPECT_FALSE(op.erase);
}

// live_bytes() is the keys, values and kEntryBytes of each live entry, kept
// through puts, overwrites, deletes, batches that repeat a key, and reopen.
TEST(MetaStore, LiveBytesCountTheLiveEntries) {
  TempDir dir;
  auto env = NewPosixEnv();
  constexpr uint64_t E = MetaStore::kEntryBytes;
  auto m = OpenOrDie(env.get(), dir.path());
  EXPECT_EQ(m->live_bytes(), 0u);
  ASSERT_TRUE(m->Put("ab", "12345").ok());
  EXPECT_EQ(m->live_bytes(), 2 + 5 + E);
  ASSERT_TRUE(m->Put("ab", "1").ok());
  EXPECT_EQ(m->live_bytes(), 2 + 1 + E);
  ASSERT_TRUE(m->Apply({{"c", "xx", false}, {"c", "xxxx", false}, {"ab", "", true}}).ok());
  EXPECT_EQ(m->live_bytes(), 1 + 4 + E);
  ASSERT_TRUE(m->Delete("zz").ok());  // absent: nothing changes
  EXPECT_EQ(m->live_bytes(), 1 + 4 + E);
  m = OpenOrDie(env.get(), dir.path());
  EXPECT_EQ(m->live_bytes(), 1 + 4 + E);
}

// With max_bytes, a change that would take the live bytes above it is
// refused whole (ResourceExhausted, nothing applied or written); one that
// shrinks always passes, also when the store is over its bound already.
TEST(MetaStore, MaxBytesRefusesGrowthBeyondIt) {
  TempDir dir;
  auto env = NewPosixEnv();
  constexpr uint64_t E = MetaStore::kEntryBytes;
  const std::string v100(100, 'v');
  {
    std::vector<std::string> w;
    std::unique_ptr<MetaStore> m;
    ASSERT_TRUE(MetaStore::Open(env.get(), dir.path(), &m, &w, 3 * (2 + 100 + E)).ok());
    EXPECT_EQ(m->max_bytes(), 3 * (2 + 100 + E));
    ASSERT_TRUE(m->Put("k1", v100).ok());
    ASSERT_TRUE(m->Apply({{"k2", v100, false}, {"k3", v100, false}}).ok());  // exactly full
    const uint64_t file_size = ReadAllFile(env.get(), dir.path() + "/meta.log").size();
    Status s = m->Put("k4", "");
    EXPECT_TRUE(s.IsResourceExhausted()) << s.ToString();
    EXPECT_NE(s.message().find("over its bound of " + std::to_string(3 * (2 + 100 + E))),
              std::string::npos) << s.ToString();
    s = m->Put("k1", v100 + "v");  // a bigger value is growth too
    EXPECT_TRUE(s.IsResourceExhausted()) << s.ToString();
    // A batch is refused whole, even when its first op alone would fit.
    s = m->Apply({{"k1", "", true}, {"k5", v100, false}, {"k6", v100, false}});
    EXPECT_TRUE(s.IsResourceExhausted()) << s.ToString();
    std::string got;
    EXPECT_TRUE(m->Get("k1", &got));
    EXPECT_FALSE(m->Get("k5", &got));
    EXPECT_EQ(ReadAllFile(env.get(), dir.path() + "/meta.log").size(), file_size);
    // Same size, smaller, deletes: fine.
    ASSERT_TRUE(m->Put("k1", std::string(100, 'w')).ok());
    ASSERT_TRUE(m->Put("k2", "short").ok());
    ASSERT_TRUE(m->Delete("k3").ok());
    ASSERT_TRUE(m->Put("k4", "x").ok());  // room freed by k3
    EXPECT_EQ(m->size(), 3u);
  }
  // Reopened with a lower bound: loaded whole with a warning; it may only
  // shrink until it is under the bound again.
  std::vector<std::string> w;
  std::unique_ptr<MetaStore> m;
  ASSERT_TRUE(MetaStore::Open(env.get(), dir.path(), &m, &w, E).ok());
  EXPECT_EQ(m->size(), 3u);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("over its bound"), std::string::npos) << w[0];
  EXPECT_TRUE(m->Put("k9", "").IsResourceExhausted());
  ASSERT_TRUE(m->Delete("k1").ok());
  ASSERT_TRUE(m->Put("k2", "").ok());
  EXPECT_TRUE(m->Put("k2", "longer than before").IsResourceExhausted());
}

TEST(MetaStore, RandomOpsMatchAMap) {
  const uint64_t seed = testing::TestSeed(42);
  std::mt19937_64 rng(seed);
  TempDir dir;
  auto env = NewPosixEnv();
  std::map<std::string, std::string> want;
  auto m = OpenOrDie(env.get(), dir.path());
  for (int i = 0; i < 300; ++i) {
    const std::string key = "k" + std::to_string(rng() % 20);
    if (rng() % 3 == 0) {
      ASSERT_TRUE(m->Delete(key).ok());
      want.erase(key);
    } else {
      const std::string value = std::to_string(rng());
      ASSERT_TRUE(m->Put(key, value).ok());
      want[key] = value;
    }
    if (i % 50 == 0) m = OpenOrDie(env.get(), dir.path());
  }
  m = OpenOrDie(env.get(), dir.path());
  const auto got = m->Range("", "");
  ASSERT_EQ(got.size(), want.size());
  size_t i = 0;
  for (const auto& kv : want) {
    EXPECT_EQ(got[i].first, kv.first);
    EXPECT_EQ(got[i].second, kv.second);
    ++i;
  }
}

}  // namespace
}  // namespace sundial::storage
