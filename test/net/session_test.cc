#include "sundial/net/session.h"

#include <atomic>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace sundial::net {
namespace {

class FakeSession : public Session {
 public:
  void Stop() override { stops.fetch_add(1); }
  void SetIdle(bool idle) {
    if (idle) {
      MarkIdle();
    } else {
      MarkBusy();
    }
  }
  std::atomic<int> stops{0};
};

const asio::ip::address kA = asio::ip::make_address("10.0.0.1");
const asio::ip::address kB = asio::ip::make_address("10.0.0.2");

using R = ConnectionManager::AddResult;

TEST(ConnectionManager, PerAddressCap) {
  ConnectionManager m(ConnectionLimits{0, 2});
  auto s1 = std::make_shared<FakeSession>();
  auto s2 = std::make_shared<FakeSession>();
  auto s3 = std::make_shared<FakeSession>();
  auto s4 = std::make_shared<FakeSession>();
  EXPECT_EQ(m.Add(s1, kA, true), R::kAdded);
  EXPECT_EQ(m.Add(s2, kA, true), R::kAdded);
  EXPECT_EQ(m.Add(s3, kA, true), R::kRefusedAddress);
  EXPECT_EQ(m.Add(s4, kB, true), R::kAdded);  // another address is not affected
  EXPECT_EQ(m.count_for(kA), 2u);
  m.Remove(s1.get());
  EXPECT_EQ(m.count_for(kA), 1u);
  EXPECT_EQ(m.Add(s3, kA, true), R::kAdded);
  EXPECT_EQ(m.total_refused(), 1u);
}

TEST(ConnectionManager, HandOverKeepsTheAddressCount) {
  ConnectionManager m(ConnectionLimits{0, 1});
  auto sniffer = std::make_shared<FakeSession>();
  auto session = std::make_shared<FakeSession>();
  EXPECT_EQ(m.Add(sniffer, kA, true), R::kAdded);
  m.Remove(sniffer.get());
  EXPECT_EQ(m.Add(session, kA, /*enforce_limit=*/false), R::kAdded);
  EXPECT_EQ(m.Add(std::make_shared<FakeSession>(), kA, true), R::kRefusedAddress);
  EXPECT_EQ(m.size(), 1u);
}

TEST(ConnectionManager, FullEvictsTheLongestIdle) {
  ConnectionManager m(ConnectionLimits{3, 0});
  std::vector<std::shared_ptr<FakeSession>> s;
  for (int i = 0; i < 6; ++i) s.push_back(std::make_shared<FakeSession>());
  for (int i = 0; i < 3; ++i) ASSERT_EQ(m.Add(s[i], kA, true), R::kAdded);
  s[1]->SetIdle(true);  // idle first: the longest idle
  s[2]->SetIdle(true);
  EXPECT_EQ(m.Add(s[3], kA, true), R::kAdded);
  EXPECT_EQ(s[1]->stops.load(), 1);
  EXPECT_EQ(s[0]->stops.load() + s[2]->stops.load(), 0);
  // The evicted one is still closing: it is not counted, nor chosen again.
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(m.Add(s[4], kA, true), R::kAdded);
  EXPECT_EQ(s[2]->stops.load(), 1);
  EXPECT_EQ(s[1]->stops.load(), 1);
  // Nobody idle now: refused, and nobody is stopped.
  EXPECT_EQ(m.Add(s[5], kA, true), R::kRefusedFull);
  EXPECT_EQ(s[0]->stops.load(), 0);
  EXPECT_EQ(m.total_evicted(), 2u);
  m.Remove(s[1].get());
  m.Remove(s[2].get());
  EXPECT_EQ(m.size(), 3u);
}

TEST(ConnectionManager, BusyAgainIsNotEvicted) {
  ConnectionManager m(ConnectionLimits{1, 0});
  auto a = std::make_shared<FakeSession>();
  ASSERT_EQ(m.Add(a, kA, true), R::kAdded);
  a->SetIdle(true);
  a->SetIdle(false);
  EXPECT_EQ(m.Add(std::make_shared<FakeSession>(), kA, true), R::kRefusedFull);
  EXPECT_EQ(a->stops.load(), 0);
}

TEST(ConnectionManager, StopAllRefusesNewOnes) {
  ConnectionManager m(0);
  auto a = std::make_shared<FakeSession>();
  ASSERT_EQ(m.Add(a, kA, true), R::kAdded);
  m.StopAll();
  EXPECT_EQ(a->stops.load(), 1);
  EXPECT_EQ(m.Add(std::make_shared<FakeSession>(), kA, false), R::kStopped);
}

}  // namespace
}  // namespace sundial::net
