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

// A storage with a relay to one target, for tests of delivery outcomes.
class RelayedStorage {
 public:
  explicit RelayedStorage(const std::string& target) {
    o_.dir = dir_.path() + "/relay";
    o_.max_backoff = milliseconds(50);
    EXPECT_TRUE(ParseTargetList(target, &o_.targets).ok());
    EXPECT_TRUE(Relay::Open(o_, env_.get(), &relay_).ok());
    storage::StorageOptions so;
    so.data_dir = dir_.path() + "/data";
    so.wal_sync = storage::WalSyncMode::kNone;
    so.wal_retention = relay_.get();
    EXPECT_TRUE(storage::Storage::Open(so, &db_).ok());
    EXPECT_TRUE(relay_->Start(db_.get()).ok());
    EXPECT_TRUE(WaitFor([&] {
      return relay_->OldestWalSegmentNeeded() != storage::kNoWalSegmentNeeded;
    }));
  }
  ~RelayedStorage() {
    relay_->Stop();
    db_.reset();
  }
  // n points of one series at t = 1000, 2000, ... in one WAL record.
  void Append(int n) {
    SeriesId id = 0;
    const storage::TagRef tag{"host", "a"};
    ASSERT_TRUE(db_->ResolveSeries("m", &tag, 1, &id).ok());
    std::vector<storage::SeriesPoint> pts;
    for (int i = 1; i <= n; ++i) pts.push_back({id, 1000 * i, Value::Int(i)});
    ASSERT_TRUE(db_->Append(pts.data(), pts.size()).ok());
  }
  TargetStatus status() const { return relay_->TargetStatuses()[0]; }

 private:
  storage::testing::TempDir dir_;
  std::unique_ptr<Env> env_ = NewPosixEnv();
  RelayOptions o_;
  std::unique_ptr<Relay> relay_;
  std::unique_ptr<storage::Storage> db_;
};

size_t PointsIn(const std::string& body) {
  size_t n = 0;
  for (size_t i = body.find("\"metric\""); i != std::string::npos; i = body.find("\"metric\"", i + 1)) ++n;
  return n;
}

TEST(Relay, TooLargeRequestsAreSplitInHalvesAndOnlyASinglePointIsSkipped) {
  const std::string k413 = "HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n";
  testing::LoopbackUpstream up(true, {k413, k413, k413});
  RelayedStorage rs("http://127.0.0.1:" + std::to_string(up.port()) + "?batch=4");
  rs.Append(4);
  ASSERT_TRUE(WaitFor([&] { return rs.status().points_sent == 3; }));
  // 4 refused, then its first half 2 refused, then its first half 1 refused
  // (skipped), then the other 1, then the other 2.
  std::vector<size_t> sizes;
  for (const std::string& b : up.bodies()) sizes.push_back(PointsIn(b));
  EXPECT_EQ(sizes, (std::vector<size_t>{4, 2, 1, 1, 2}));
  const TargetStatus st = rs.status();
  EXPECT_EQ(st.points_rejected, 1u);
  EXPECT_EQ(st.retries, 2u);
  EXPECT_NE(st.last_error.find("413"), std::string::npos) << st.last_error;
  EXPECT_NE(up.bodies()[2].find("\"timestamp\":1000,"), std::string::npos);  // the one skipped
  EXPECT_NE(up.bodies()[3].find("\"timestamp\":2000,"), std::string::npos);
}

TEST(Relay, AuthErrorsKeepTheBatchUntilTheUpstreamAcceptsIt) {
  const std::string k401 = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 13\r\n\r\ntoken expired";
  testing::LoopbackUpstream up(true, {k401, k401, k401});
  RelayedStorage rs("http://127.0.0.1:" + std::to_string(up.port()) + "?batch=10&bearer=old");
  rs.Append(5);
  ASSERT_TRUE(WaitFor([&] { return rs.status().points_sent == 5; }));
  const TargetStatus st = rs.status();
  EXPECT_EQ(st.points_rejected, 0u);
  EXPECT_EQ(st.retries, 3u);
  EXPECT_EQ(st.last_error, "HTTP 401: token expired");
  EXPECT_GT(st.last_error_ms, 0);
  const std::vector<std::string> bodies = up.bodies();
  ASSERT_EQ(bodies.size(), 4u);
  for (const std::string& b : bodies) EXPECT_EQ(b, bodies[0]);  // the same batch each time
  EXPECT_EQ(PointsIn(bodies[3]), 5u);
}

}  // namespace
}  // namespace sundial::relay
