#include "sundial/relay/relay.h"

#include <gtest/gtest.h>

#include <thread>

#include "relay/loopback_upstream.h"
#include "relay/position_file.h"
#include "storage/test_util.h"

namespace sundial::relay {
namespace {

using std::chrono::milliseconds;

template <typename Pred>
bool WaitFor(Pred pred) {
  for (int i = 0; i < 500; ++i) {  // 10 s at most
    if (pred()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return false;
}

TEST(Relay, PositionsDecideWhichWalSegmentsAreKept) {
  storage::testing::TempDir dir;
  std::unique_ptr<Env> env = NewPosixEnv();
  RelayOptions o;
  o.dir = dir.path() + "/relay";
  ASSERT_TRUE(ParseTargetList("http://127.0.0.1:1,telnet://127.0.0.1:2", &o.targets).ok());
  {
    std::unique_ptr<Relay> r;
    ASSERT_TRUE(Relay::Open(o, env.get(), &r).ok());
    EXPECT_EQ(r->OldestWalSegmentNeeded(), storage::kNoWalSegmentNeeded);  // no positions yet
  }
  ASSERT_TRUE(WritePositionFile(env.get(), o.dir + "/" + o.targets[0].id + ".pos",
                                PositionRecord{{12, 100}, 5, 0})
                  .ok());
  ASSERT_TRUE(WritePositionFile(env.get(), o.dir + "/" + o.targets[1].id + ".pos",
                                PositionRecord{{9, 16}, 7, 1})
                  .ok());
  std::unique_ptr<Relay> r;
  ASSERT_TRUE(Relay::Open(o, env.get(), &r).ok());
  EXPECT_EQ(r->OldestWalSegmentNeeded(), 9u);
  const std::vector<TargetStatus> st = r->TargetStatuses();
  ASSERT_EQ(st.size(), 2u);
  EXPECT_EQ(st[1].points_sent, 7u);
  EXPECT_EQ(st[1].points_dropped, 1u);
}

TEST(Relay, ForwardsWhatTheWalAcceptedAndResumesAfterRestart) {
  storage::testing::TempDir dir;
  testing::LoopbackUpstream up(false);
  std::unique_ptr<Env> env = NewPosixEnv();
  RelayOptions o;
  o.dir = dir.path() + "/relay";
  o.max_backoff = milliseconds(50);
  ASSERT_TRUE(ParseTargetList("telnet://127.0.0.1:" + std::to_string(up.port()) +
                                  "?exclude=skip.*&tag=site=edge",
                              &o.targets)
                  .ok());
  storage::StorageOptions so;
  so.data_dir = dir.path() + "/data";
  so.wal_sync = storage::WalSyncMode::kNone;
  auto append = [](storage::Storage* db, std::string_view metric, Timestamp t) {
    SeriesId id = 0;
    const storage::TagRef tag{"host", "a"};
    ASSERT_TRUE(db->ResolveSeries(metric, &tag, 1, &id).ok());
    const storage::SeriesPoint p{id, t, Value::Int(t)};
    ASSERT_TRUE(db->Append(&p, 1).ok());
  };
  for (int run = 0; run < 2; ++run) {
    std::unique_ptr<Relay> relay;
    ASSERT_TRUE(Relay::Open(o, env.get(), &relay).ok());
    so.wal_retention = relay.get();
    std::unique_ptr<storage::Storage> db;
    ASSERT_TRUE(storage::Storage::Open(so, &db).ok());
    ASSERT_TRUE(relay->Start(db.get()).ok());
    // Give a new target its starting position before writing.
    ASSERT_TRUE(WaitFor([&] { return relay->OldestWalSegmentNeeded() != storage::kNoWalSegmentNeeded; }));
    append(db.get(), "keep.me", 1000 * (run + 1));
    append(db.get(), "skip.me", 5000);
    ASSERT_TRUE(WaitFor([&] { return relay->TargetStatuses()[0].points_sent == run + 1u; }));
    relay->Stop();
    db.reset();
  }
  EXPECT_TRUE(WaitFor([&] { return up.bytes().size() >= 2 * 35; }));
  EXPECT_EQ(up.bytes(),
            "put keep.me 1 1000 host=a site=edge\nput keep.me 2 2000 host=a site=edge\n");
}

}  // namespace
}  // namespace sundial::relay
