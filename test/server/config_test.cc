#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/options.h"

namespace sundial::server {
namespace {

class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/sundial_config_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    unlink(path_.c_str());
    rmdir(dir_.c_str());
  }
  std::string Write(const std::string& text) {
    path_ = dir_ + "/sundial.conf";
    std::ofstream(path_) << text;
    return path_;
  }
  Status Parse(std::vector<const char*> args, Options* o, CliAction* a) {
    args.insert(args.begin(), "sundiald");
    return ParseCommandLine(static_cast<int>(args.size()), args.data(), o, a);
  }
  std::string dir_, path_;
};

TEST_F(ConfigTest, FileThenFlagsWin) {
  const std::string conf = Write("# comment\n\nport = 5000\n  log.level=debug  \ndata_dir = /x\n");
  Options o = DefaultOptions();
  CliAction a;
  ASSERT_TRUE(Parse({"--port", "6000", "--config", conf.c_str()}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kRun);
  EXPECT_EQ(o.listener.port, 6000);  // flag beats file wherever it appears
  EXPECT_EQ(o.log.level, "debug");
  EXPECT_EQ(o.storage.data_dir, "/x");
}

TEST_F(ConfigTest, FlagForms) {
  Options o = DefaultOptions();
  CliAction a;
  ASSERT_TRUE(Parse({"--data-dir=/d", "--http-max-body-size", "1MiB", "--wal-sync=batch"}, &o, &a).ok());
  EXPECT_EQ(o.storage.data_dir, "/d");
  EXPECT_EQ(o.http.limits.max_body_bytes, 1u << 20);
  EXPECT_EQ(o.storage.wal_sync, storage::WalSyncMode::kEveryBatch);
}

TEST_F(ConfigTest, CommandLineErrors) {
  Options o = DefaultOptions();
  CliAction a;
  Status s = Parse({"--bogus", "1"}, &o, &a);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unknown option: --bogus"), std::string::npos) << s.message();
  s = Parse({"--port", "abc"}, &o, &a);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("--port"), std::string::npos) << s.message();
  EXPECT_FALSE(Parse({"--port"}, &o, &a).ok());
  EXPECT_FALSE(Parse({"stray"}, &o, &a).ok());
  EXPECT_FALSE(Parse({"--config", "/nonexistent/sundial.conf"}, &o, &a).ok());
}

TEST_F(ConfigTest, FileErrorsCarryLineNumbers) {
  Options o = DefaultOptions();
  Status s = LoadConfigFile(Write("port = 1\nnot a pair\n"), &o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sundial.conf:2"), std::string::npos) << s.message();
  s = LoadConfigFile(Write("port = 1\n\nunknown.key = 3\n"), &o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sundial.conf:3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("unknown.key"), std::string::npos) << s.message();
}

TEST_F(ConfigTest, Actions) {
  Options o = DefaultOptions();
  CliAction a;
  ASSERT_TRUE(Parse({"--help"}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kHelp);
  ASSERT_TRUE(Parse({"--version"}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kVersion);
  ASSERT_TRUE(Parse({"--print-config"}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kPrintConfig);
  ASSERT_TRUE(Parse({"--man"}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kMan);
  // --health takes the other flags into account (the default URL uses the
  // port), or a URL of its own.
  ASSERT_TRUE(Parse({"--health", "--port", "4343"}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kHealth);
  EXPECT_EQ(o.health_url, "");
  EXPECT_EQ(o.listener.port, 4343);
  ASSERT_TRUE(Parse({"--health=http://127.0.0.1:1/x"}, &o, &a).ok());
  EXPECT_EQ(a, CliAction::kHealth);
  EXPECT_EQ(o.health_url, "http://127.0.0.1:1/x");
  const std::string man = ManPageText();
  EXPECT_EQ(man.find(".TH SUNDIALD 8"), man.find('\n') + 1);
  const std::string help = HelpText();
  for (const OptionSpec& spec : OptionTable()) {
    EXPECT_NE(help.find(FlagForKey(spec.key)), std::string::npos) << spec.key;
    std::string roff_flag;  // the man page writes '-' as "\-"
    for (char c : FlagForKey(spec.key)) roff_flag += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(man.find(".BR " + roff_flag + " "), std::string::npos) << spec.key;
  }
}

}  // namespace
}  // namespace sundial::server
