#include "sundial/http/router.h"

#include <gtest/gtest.h>

namespace sundial::http {
namespace {

// Records what it was sent.
class FakeResponder : public Responder {
 public:
  void Send(Reply reply) override { reply_ = std::move(reply); }
  void StartChunked(Reply head) override { reply_ = std::move(head); }
  void WriteChunk(std::string data, std::function<void(bool)>) override { reply_.body += data; }
  void Finish() override {}
  bool cancelled() const override { return false; }
  Reply reply_;
};

struct Fixture {
  Router router;
  std::string hit;
  Request seen;
  Fixture() {
    auto record = [this](const char* name) {
      return [this, name](Request r, ResponderPtr resp) {
        hit = name;
        seen = std::move(r);
        resp->Send(Reply::Json("{}"));
      };
    };
    router.Add({Method::kGet, Method::kPost}, "/api/query", record("query"));
    router.Add({Method::kGet}, "/api/query/last", record("last"));
    router.Add({Method::kPost}, "/api/put", record("put"));
    router.Add({Method::kGet}, "/metrics", record("metrics"));
  }
  Reply Go(Method m, const std::string& path) {
    hit.clear();
    auto resp = std::make_shared<FakeResponder>();
    Request r;
    r.method = m;
    r.path = path;
    router.Dispatch(std::move(r), resp);
    return resp->reply_;
  }
};

TEST(Router, OpenTsdbPathRules) {
  Fixture f;
  EXPECT_EQ(f.Go(Method::kGet, "/api/query").status, 200);
  EXPECT_EQ(f.hit, "query");
  EXPECT_EQ(f.seen.api_version, 1);
  EXPECT_EQ(f.seen.route, "/api/query");
  f.Go(Method::kGet, "/API/Query/");
  EXPECT_EQ(f.hit, "query");
  f.Go(Method::kGet, "/api/v1/query");
  EXPECT_EQ(f.hit, "query");
  f.Go(Method::kGet, "//api//query//last/");
  EXPECT_EQ(f.hit, "last");
  f.Go(Method::kGet, "/api/query/exp");
  EXPECT_EQ(f.hit, "query");
  EXPECT_EQ(f.seen.route_rest, "exp");
  f.Go(Method::kGet, "/metrics");
  EXPECT_EQ(f.hit, "metrics");
  EXPECT_EQ(f.seen.api_version, 0);
}

TEST(Router, RouteRestKeepsCaseAndDropsEmptySegments) {
  Fixture f;
  f.Go(Method::kGet, "/API/V1/Query/Last/Extra//Deep/");
  EXPECT_EQ(f.hit, "last");
  EXPECT_EQ(f.seen.route, "/api/query/last");
  EXPECT_EQ(f.seen.route_rest, "Extra/Deep");
  // More segments than any route has: all of them after the route.
  f.Go(Method::kGet, "/api/v1/query/a/b/c/d/e/f/g/h");
  EXPECT_EQ(f.hit, "query");
  EXPECT_EQ(f.seen.route_rest, "a/b/c/d/e/f/g/h");
  f.Go(Method::kGet, "/metrics//x/");
  EXPECT_EQ(f.hit, "metrics");
  EXPECT_EQ(f.seen.route_rest, "x");
  f.Go(Method::kGet, "/api/query");
  EXPECT_EQ(f.seen.route_rest, "");
  // "v" + non-digit is not a version segment.
  EXPECT_EQ(f.Go(Method::kGet, "/api/vx/query").status, 404);
  EXPECT_EQ(f.hit, "");
  EXPECT_EQ(f.Go(Method::kGet, "/api/v01/query").status, 200);
  EXPECT_EQ(f.Go(Method::kGet, "/api/v1234567890/query").status, 400);
}

TEST(Router, RootRouteMatchesOnlyItself) {
  Fixture f;
  f.router.Add({Method::kGet}, "/", [&f](Request, ResponderPtr r) {
    f.hit = "root";
    r->Send(Reply::NoContent());
  });
  EXPECT_EQ(f.Go(Method::kGet, "//").status, 204);
  EXPECT_EQ(f.hit, "root");
  EXPECT_EQ(f.Go(Method::kGet, "/other").status, 404);
  EXPECT_EQ(f.hit, "");
}

TEST(Router, Errors) {
  Fixture f;
  Reply r = f.Go(Method::kGet, "/api/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"({"error":{"code":404,"message":"Endpoint not found"}})");
  EXPECT_EQ(f.Go(Method::kGet, "/api").status, 404);
  r = f.Go(Method::kGet, "/nope");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type.rfind("text/html", 0), 0u);
  r = f.Go(Method::kGet, "/api/put");
  EXPECT_EQ(r.status, 405);
  EXPECT_NE(r.body.find("The HTTP method [GET] is not permitted"), std::string::npos);
  r = f.Go(Method::kGet, "/api/v2/query");
  EXPECT_EQ(r.status, 501);
  EXPECT_NE(r.body.find("API version [2] is greater than the max [1]"), std::string::npos);
  r = f.Go(Method::kGet, "/api/v1x/query");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(f.hit, "");
}

TEST(Router, ReRegisteringReplaces) {
  Fixture f;
  f.router.Add({Method::kGet}, "/api/put", [&f](Request, ResponderPtr r) {
    f.hit = "put2";
    r->Send(Reply::NoContent());
  });
  EXPECT_EQ(f.Go(Method::kGet, "/api/put").status, 204);
  EXPECT_EQ(f.hit, "put2");
}

}  // namespace
}  // namespace sundial::http
