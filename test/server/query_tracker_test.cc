#include "query_tracker.h"

#include <gtest/gtest.h>

#include <functional>

#include <nlohmann/json.hpp>

namespace sundial::server {
namespace {

// Records what reaches the connection.
class FakeResponder final : public http::Responder {
 public:
  void Send(http::Reply reply) override {
    sent = reply.status;
    if (on_last_bytes) on_last_bytes();
  }
  void StartChunked(http::Reply head) override { sent = head.status; }
  void WriteChunk(std::string, std::function<void(bool)>) override {}
  void Finish() override {
    finished = true;
    if (on_last_bytes) on_last_bytes();
  }
  bool cancelled() const override { return false; }
  int sent = 0;
  bool finished = false;
  std::function<void()> on_last_bytes;  // when the answer's end goes out
};

http::Request Query(std::string body) {
  http::Request req;
  req.method = http::Method::kPost;
  req.target = "/api/query";
  req.body = std::move(body);
  req.headers.Add("X-Request-ID", "r-1");
  req.headers.Add("X-Forwarded-For", "10.0.0.1");
  return req;
}

TEST(QueryTracker, RunningUntilSentThenCompleted) {
  QueryTracker t;
  auto inner = std::make_shared<FakeResponder>();
  http::ResponderPtr r = t.Track(Query(R"({"start":1})"), inner);
  auto j = nlohmann::json::parse(t.Json());
  ASSERT_EQ(j["running"].size(), 1u);
  EXPECT_EQ(j["running"][0]["query"], R"({"start":1})");
  EXPECT_EQ(j["running"][0]["remote"], "10.0.0.1");
  EXPECT_EQ(j["running"][0]["requestId"], "r-1");
  EXPECT_TRUE(j["completed"].empty());
  r->Send(http::Reply::Error(400, "bad"));
  EXPECT_EQ(inner->sent, 400);
  j = nlohmann::json::parse(t.Json());
  EXPECT_TRUE(j["running"].empty());
  ASSERT_EQ(j["completed"].size(), 1u);
  EXPECT_EQ(j["completed"][0]["httpResponse"]["code"], 400);
  EXPECT_EQ(j["completed"][0]["httpResponse"]["reasonPhrase"], "Bad Request");
  EXPECT_EQ(j["executed"], 1);
}

// A client that reads /api/stats/query as soon as it has its answer (on
// another connection, served by another thread) finds the query completed:
// the tracker is told before the answer's last bytes go out.
TEST(QueryTracker, CompletedBeforeTheAnswerLeaves) {
  QueryTracker t;
  auto inner = std::make_shared<FakeResponder>();
  size_t running_then = 99, completed_then = 99;
  inner->on_last_bytes = [&] {
    const auto j = nlohmann::json::parse(t.Json());
    running_then = j["running"].size();
    completed_then = j["completed"].size();
  };
  t.Track(Query("a"), inner)->Send(http::Reply::Json("[]"));
  EXPECT_EQ(running_then, 0u);
  EXPECT_EQ(completed_then, 1u);
  http::ResponderPtr r = t.Track(Query("b"), inner);
  r->StartChunked(http::Reply::Json("["));
  r->WriteChunk("]", nullptr);
  r->Finish();
  EXPECT_EQ(running_then, 0u);
  EXPECT_EQ(completed_then, 2u);
}

TEST(QueryTracker, StreamedAndDroppedRepliesComplete) {
  QueryTracker t;
  auto inner = std::make_shared<FakeResponder>();
  {
    http::ResponderPtr r = t.Track(Query("a"), inner);
    r->StartChunked(http::Reply::Json("["));
    r->WriteChunk("]", nullptr);
    r->Finish();
  }
  EXPECT_TRUE(inner->finished);
  { http::ResponderPtr dropped = t.Track(Query("b"), inner); }
  const auto j = nlohmann::json::parse(t.Json());
  ASSERT_EQ(j["completed"].size(), 2u);
  EXPECT_EQ(j["completed"][0]["query"], "b");  // newest first
  EXPECT_EQ(j["completed"][0]["httpResponse"]["code"], 500);
  EXPECT_EQ(j["completed"][1]["httpResponse"]["code"], 200);
}

TEST(QueryTracker, CompletedRingIsBounded) {
  QueryTracker t;
  auto inner = std::make_shared<FakeResponder>();
  for (size_t i = 0; i < QueryTracker::kMaxCompleted + 10; ++i) {
    t.Track(Query(std::string(QueryTracker::kMaxQueryText + 5, 'q')), inner)
        ->Send(http::Reply::Json("[]"));
  }
  const auto j = nlohmann::json::parse(t.Json());
  EXPECT_EQ(j["completed"].size(), QueryTracker::kMaxCompleted);
  EXPECT_EQ(j["completed"][0]["query"].get<std::string>().size(), QueryTracker::kMaxQueryText);
  EXPECT_EQ(j["executed"], QueryTracker::kMaxCompleted + 10);
}

}  // namespace
}  // namespace sundial::server
