#include "put_line_checker.h"

#include <gtest/gtest.h>

#include <string>

namespace sundial::server {
namespace {

std::string Check(PutLineChecker* c, const std::string& line) {
  std::string reply;
  c->Check(line, &reply);
  return reply;
}

TEST(PutLineChecker, GivesTheServersTextsForBadLines) {
  PutLineChecker c{ingest::IngestOptions()};
  EXPECT_EQ(Check(&c, "put cpu 1356998400 1 host=a"), "");
  EXPECT_EQ(Check(&c, "put cpu 1356998401"),
            "put: illegal argument: not enough arguments (need least 4, got 2)\n");
  EXPECT_EQ(Check(&c, "put cpu 1356998402 x host=a"),
            "put: invalid value: Invalid character 'x' in x\n");
  EXPECT_EQ(Check(&c, "put cpu -5 4 host=a"), "put: illegal argument: invalid timestamp: -5\n");
  EXPECT_EQ(Check(&c, "put cpu 1356998403 4 host"), "put: illegal argument: invalid tag: host\n");
  // The same series again (a cache hit) is still fine, and so is a float.
  EXPECT_EQ(Check(&c, "put cpu 1356998404 4.5 host=a"), "");
}

TEST(PutLineChecker, AppliesTheGivenRulesAndKnowsEveryMetric) {
  ingest::IngestOptions o;
  o.max_tags = 1;
  o.auto_create_metrics = false;  // taken as true: it cannot know the server's metrics
  PutLineChecker c(o);
  EXPECT_EQ(Check(&c, "put never.seen 1356998400 1 host=a"), "");
  const std::string two = Check(&c, "put m 1356998400 1 a=1 b=2");
  EXPECT_NE(two.find("put: illegal argument: Too many tags"), std::string::npos) << two;
}

}  // namespace
}  // namespace sundial::server
