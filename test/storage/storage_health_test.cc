// Health: a failed apply stops writes without losing the point, a full disk
// gives a read-only engine that still starts and serves reads, and many
// partitions never need one file descriptor each.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/fault_env.h"
#include "storage/storage_impl.h"
#include "storage/test_util.h"

namespace sundial::storage {
namespace {

using sundial::testing::FaultInjectionEnv;
using testing::ReadAll;
using testing::SmallOptions;
using testing::TempDir;

constexpr Timestamp kDay = 86400000;

struct Opened {
  std::unique_ptr<StorageImpl> db;
  FaultInjectionEnv* fault = nullptr;  // owned by db
  SeriesId id = 0;
};

Opened OpenFaulty(const StorageOptions& o) {
  Opened r;
  auto env = std::make_unique<FaultInjectionEnv>(NewPosixEnv());
  r.fault = env.get();
  Status s = StorageImpl::Open(o, std::move(env), &r.db);
  EXPECT_TRUE(s.ok()) << s.ToString();
  if (!s.ok()) return r;
  TagRef tag{"host", "a"};
  EXPECT_TRUE(r.db->ResolveSeries("m", &tag, 1, &r.id).ok());
  return r;
}

TEST(StorageHealth, FailedApplyStopsWritesKeepsWalAndRestartRecovers) {
  TempDir dir;
  const StorageOptions o = SmallOptions(dir.path());
  {
    Opened d = OpenFaulty(o);
    ASSERT_NE(d.db, nullptr);
    SeriesPoint p0{d.id, 1000, Value::Int(1)};
    SeriesPoint pn{d.id, 9 * kDay + 1000, Value::Int(9)};
    ASSERT_TRUE(d.db->Append(&p0, 1).ok());
    ASSERT_TRUE(d.db->Append(&pn, 1).ok());
  }
  {
    // Only the newest partition opens at start; day 0's files then cannot
    // be opened when a late point needs them.
    Opened d = OpenFaulty(o);
    ASSERT_NE(d.db, nullptr);
    d.fault->SetFilter("/part/0_");
    d.fault->SetFailOpen(true);
    SeriesPoint p1{d.id, 5000, Value::Int(2)};
    const Status s = d.db->Append(&p1, 1);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Status::Code::kUnavailable) << s.ToString();
    EXPECT_NE(s.ToString().find("apply failed"), std::string::npos) << s.ToString();
    EXPECT_TRUE(d.db->health().stopped);
    EXPECT_TRUE(d.db->health().read_only);
    EXPECT_EQ(d.db->stats().read_only, 1u);
    EXPECT_EQ(d.db->stats().apply_errors, 1u);
    // Further writes stop, even ones that could be applied.
    d.fault->SetFailOpen(false);
    SeriesPoint p2{d.id, 9 * kDay + 2000, Value::Int(3)};
    EXPECT_EQ(d.db->Append(&p2, 1).code(), Status::Code::kUnavailable);
    // No checkpoint drops the WAL that holds p1.
    EXPECT_FALSE(d.db->TEST_Checkpoint().ok());
    d.db->TEST_RunMaintenance();
    // Reads go on (day 9 is open).
    EXPECT_EQ(ReadAll(d.db.get(), d.id, 9 * kDay).size(), 1u);
  }  // the engine closes without resetting the WAL
  Opened r = OpenFaulty(o);
  ASSERT_NE(r.db, nullptr);
  EXPECT_FALSE(r.db->health().read_only) << r.db->health().reason;
  const std::vector<Sample> got = ReadAll(r.db.get(), r.id);
  ASSERT_EQ(got.size(), 3u);  // the unacknowledged point is not lost either
  EXPECT_EQ(got[0].t, 1000);
  EXPECT_EQ(got[1].t, 5000);
  EXPECT_EQ(got[2].t, 9 * kDay + 1000);
}

TEST(StorageHealth, StartsReadOnlyOnFullDiskServesReadsAndRecovers) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  o.resume_free_bytes = 1 << 20;
  // A child writes and dies without closing (kill -9): the points are in
  // the WAL only.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::unique_ptr<Storage> db;
    if (!Storage::Open(o, &db).ok()) _exit(2);
    TagRef tag{"host", "a"};
    SeriesId id = 0;
    if (!db->ResolveSeries("m", &tag, 1, &id).ok()) _exit(3);
    for (int i = 0; i < 100; ++i) {
      SeriesPoint p{id, 1000 * (i + 1), Value::Int(i)};
      if (!db->Append(&p, 1).ok()) _exit(4);
    }
    if (!db->Sync().ok()) _exit(5);
    _exit(0);
  }
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) << wstatus;
  auto env = std::make_unique<FaultInjectionEnv>(NewPosixEnv());
  FaultInjectionEnv* fault = env.get();
  fault->SetSpace(0);  // the disk is full from the start
  std::unique_ptr<StorageImpl> db;
  const Status open = StorageImpl::Open(o, std::move(env), &db, false);
  ASSERT_TRUE(open.ok()) << open.ToString();
  EXPECT_TRUE(db->health().read_only);
  EXPECT_FALSE(db->health().stopped);
  EXPECT_NE(db->health().reason.find("disk full"), std::string::npos) << db->health().reason;
  std::vector<SeriesId> ids = db->SeriesOfMetric("m");
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_EQ(ReadAll(db.get(), ids[0]).size(), 100u);  // replayed into memory
  SeriesPoint p{ids[0], 200000, Value::Int(7)};
  Status w = db->Append(&p, 1);
  EXPECT_EQ(w.code(), Status::Code::kUnavailable) << w.ToString();
  EXPECT_NE(w.ToString().find("read-only"), std::string::npos) << w.ToString();
  db->TEST_RunMaintenance();  // still full: stays read-only
  EXPECT_TRUE(db->health().read_only);
  fault->SetSpace(-1);  // space returns; the next check notices
  fault->AdvanceClock(10000);
  db->TEST_RunMaintenance();
  EXPECT_FALSE(db->health().read_only) << db->health().reason;
  ASSERT_TRUE(db->Append(&p, 1).ok());
  EXPECT_EQ(ReadAll(db.get(), ids[0]).size(), 101u);
  bool logged = false;
  for (const std::string& line : db->recovery_warnings()) {
    if (line.find("read-only") != std::string::npos) logged = true;
  }
  EXPECT_TRUE(logged);
}

// More day partitions than file descriptors: the set keeps at most
// max_open_partitions open, so both the writing and a restart under a small
// RLIMIT_NOFILE work.
TEST(StorageHealth, ManyPartitionsFewFileDescriptors) {
  TempDir dir;
  StorageOptions o = SmallOptions(dir.path());
  o.max_open_partitions = 8;
  o.max_open_files = 16;
  constexpr int kDays = 300;
  SeriesId id = 0;
  {
    std::unique_ptr<Storage> db;
    ASSERT_TRUE(Storage::Open(o, &db).ok());
    TagRef tag{"host", "a"};
    ASSERT_TRUE(db->ResolveSeries("m", &tag, 1, &id).ok());
    for (int d = 0; d < kDays; ++d) {
      for (int i = 0; i < 3; ++i) {
        SeriesPoint p{id, d * kDay + i * 1000, Value::Int(d * 10 + i)};
        ASSERT_TRUE(db->Append(&p, 1).ok());
      }
    }
    EXPECT_LE(db->stats().partitions, 8u + 2u);
    EXPECT_LE(db->stats().open_files, 16u);
    EXPECT_EQ(ReadAll(db.get(), id).size(), static_cast<size_t>(kDays) * 3);
  }
  {
    std::unique_ptr<Storage> db;
    ASSERT_TRUE(Storage::Open(o, &db).ok());
    EXPECT_EQ(ReadAll(db.get(), id).size(), static_cast<size_t>(kDays) * 3) << "no rlimit";
    for (auto& w : db->recovery_warnings()) ADD_FAILURE() << w;
  }
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &small), 0);
  struct Restore {
    struct rlimit r;
    ~Restore() { setrlimit(RLIMIT_NOFILE, &r); }
  } restore{old};
  std::unique_ptr<Storage> db;
  const Status s = Storage::Open(o, &db);
  ASSERT_TRUE(s.ok()) << s.ToString();
  const std::vector<Sample> got = ReadAll(db.get(), id);
  EXPECT_EQ(got.size(), static_cast<size_t>(kDays) * 3);
  EXPECT_LE(db->stats().open_files, 16u);
  EXPECT_GT(db->stats().file_closes, 0u);
  SeriesPoint p{id, kDays * kDay, Value::Int(1)};
  EXPECT_TRUE(db->Append(&p, 1).ok());
}

}  // namespace
}  // namespace sundial::storage
