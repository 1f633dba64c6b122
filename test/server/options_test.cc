#include "server/options.h"

#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

TEST(Options, EveryDefaultParses) {
  for (const OptionSpec& spec : OptionTable()) {
    Options o;
    Status s = spec.apply(spec.default_value, &o);
    EXPECT_TRUE(s.ok()) << spec.key << ": " << s.ToString();
    EXPECT_FALSE(spec.help.empty()) << spec.key;
  }
}

TEST(Options, KeysAreUnique) {
  std::set<std::string_view> keys;
  for (const OptionSpec& spec : OptionTable()) EXPECT_TRUE(keys.insert(spec.key).second) << spec.key;
}

TEST(Options, DefaultsLandInModuleStructs) {
  Options o = DefaultOptions();
  EXPECT_EQ(o.listener.port, 4242);
  EXPECT_EQ(o.listener.bind_address, "0.0.0.0");
  EXPECT_EQ(o.storage.data_dir, "data");
  EXPECT_EQ(o.line.max_line_length, 64u * 1024);
  EXPECT_EQ(o.http.limits.max_body_bytes, 64ull << 20);
  EXPECT_EQ(o.ingest.max_tags, 8u);
  EXPECT_TRUE(o.ingest.auto_create_metrics);
  EXPECT_EQ(o.storage.wal_sync, storage::WalSyncMode::kInterval);
  EXPECT_EQ(o.storage.wal_sync_interval_ms, 1000u);
  EXPECT_EQ(o.log.level, "info");
  EXPECT_FALSE(o.telnet.diediedie);
}

TEST(Options, WalSyncForms) {
  Options o = DefaultOptions();
  ASSERT_TRUE(SetOption("wal.sync", "batch", &o).ok());
  EXPECT_EQ(o.storage.wal_sync, storage::WalSyncMode::kEveryBatch);
  ASSERT_TRUE(SetOption("wal.sync", "none", &o).ok());
  EXPECT_EQ(o.storage.wal_sync, storage::WalSyncMode::kNone);
  ASSERT_TRUE(SetOption("wal.sync", "250", &o).ok());
  EXPECT_EQ(o.storage.wal_sync, storage::WalSyncMode::kInterval);
  EXPECT_EQ(o.storage.wal_sync_interval_ms, 250u);
  EXPECT_FALSE(SetOption("wal.sync", "sometimes", &o).ok());
}

TEST(Options, ErrorsNameTheKey) {
  Options o = DefaultOptions();
  Status s = SetOption("port", "70000", &o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("port"), std::string::npos);
  EXPECT_TRUE(SetOption("no.such", "1", &o).IsNotFound());
}

TEST(Options, IdleTimeoutReachesEveryLayer) {
  Options o = DefaultOptions();
  ASSERT_TRUE(SetOption("idle_timeout", "5m", &o).ok());
  EXPECT_EQ(o.listener.idle_timeout.count(), 300000);
  EXPECT_EQ(o.line.idle_timeout.count(), 300000);
  EXPECT_EQ(o.http.idle_timeout.count(), 300000);
}

TEST(Options, FlagNames) {
  EXPECT_EQ(FlagForKey("data_dir"), "--data-dir");
  EXPECT_EQ(FlagForKey("log.level"), "--log-level");
  EXPECT_EQ(FlagForKey("http.max_body_size"), "--http-max-body-size");
}

// conf/sundial.conf must list every key with its default.
TEST(Options, ShippedConfigListsEveryKeyWithItsDefault) {
  std::ifstream in(std::string(SUNDIAL_SOURCE_DIR) + "/conf/sundial.conf");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (const OptionSpec& spec : OptionTable()) {
    const std::string line = "\n" + std::string(spec.key) + " = " + std::string(spec.default_value) + "\n";
    EXPECT_NE(text.find(line), std::string::npos) << "missing or changed: " << spec.key;
  }
  EXPECT_EQ(text, DefaultConfigText()) << "regenerate with: build/sundiald --print-config > conf/sundial.conf";
}

// README.md's configuration table must have a row for every key, with its
// flag and default.
TEST(Options, ReadmeTableListsEveryKeyWithFlagAndDefault) {
  std::ifstream in(std::string(SUNDIAL_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  for (const OptionSpec& spec : OptionTable()) {
    const std::string value =
        spec.default_value.empty() ? "(empty)" : "`" + std::string(spec.default_value) + "`";
    const std::string row = "| `" + std::string(spec.key) + "` | `" + FlagForKey(spec.key) +
                            "` | " + value + " |";
    EXPECT_NE(text.find(row), std::string::npos) << "README row missing or changed: " << row;
  }
}

}  // namespace
}  // namespace sundial::server
