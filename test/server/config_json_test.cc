#include "server/config_json.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/options.h"

namespace sundial::server {
namespace {

// Every option is listed, every value is a string, keys come out sorted.
TEST(ConfigJson, ListsEveryOptionAsAString) {
  const Options o = DefaultOptions();
  const nlohmann::json j = nlohmann::json::parse(ConfigJson(o), nullptr, false);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j.size(), OptionTable().size());
  std::string last;
  for (const auto& [key, value] : j.items()) {
    EXPECT_TRUE(value.is_string()) << key;
    EXPECT_LT(last, key);
    last = key;
  }
  for (const OptionSpec& spec : OptionTable()) {
    ASSERT_TRUE(j.contains(std::string(spec.key))) << spec.key;
    EXPECT_EQ(j[std::string(spec.key)], std::string(spec.default_value)) << spec.key;
  }
}

// The effective value is shown: the last one set wins over the default.
TEST(ConfigJson, ShowsTheValueInEffect) {
  Options o = DefaultOptions();
  ASSERT_TRUE(SetOption("query.max_series", "77", &o).ok());
  ASSERT_FALSE(SetOption("query.max_series", "not a number", &o).ok());  // kept: 77
  const nlohmann::json j = nlohmann::json::parse(ConfigJson(o), nullptr, false);
  EXPECT_EQ(j["query.max_series"], "77");
}

TEST(ConfigJson, MasksRelayCredentialsAndSecretKeys) {
  Options o = DefaultOptions();
  ASSERT_TRUE(SetOption("relay.targets",
                        "http://a:4242?bearer=s3cret&batch=5,influx://b:8086/write?db=x&basic=u:pw",
                        &o)
                  .ok());
  const nlohmann::json j = nlohmann::json::parse(ConfigJson(o), nullptr, false);
  EXPECT_EQ(j["relay.targets"],
            "http://a:4242?bearer=********&batch=5,influx://b:8086/write?db=x&basic=********");
  EXPECT_EQ(ConfigJson(o).find("s3cret"), std::string::npos);
  EXPECT_EQ(ConfigJson(o).find("u:pw"), std::string::npos);
  // Keys that name a secret are masked whole, as OpenTSDB masks "PASS".
  EXPECT_EQ(MaskedConfigValue("upstream.password", "hunter2"), "********");
  EXPECT_EQ(MaskedConfigValue("x.auth_token", "abc"), "********");
  EXPECT_EQ(MaskedConfigValue("x.auth_token", ""), "");
  EXPECT_EQ(MaskedConfigValue("query.max_series", "5"), "5");
  // A parameter merely ending in "bearer" is not a credential.
  EXPECT_EQ(MaskedConfigValue("relay.targets", "http://a:1?nobearer=x"), "http://a:1?nobearer=x");
}

}  // namespace
}  // namespace sundial::server
