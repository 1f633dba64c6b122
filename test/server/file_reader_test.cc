#include "file_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace sundial::server {
namespace {

class FileReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/file_reader_test.XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    // Enough lines for several blocks.
    for (int i = 0; i < 100000; ++i) text_ += "cpu " + std::to_string(1356998400 + i) + " 1 host=a\n";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string ReadAll(const std::string& path, Status* status) {
    FileReader r;
    *status = r.Open(path);
    if (!status->ok()) return "";
    std::string all, block;
    while (r.Next(&block)) all += block;
    *status = r.status();
    EXPECT_EQ(r.offset(), r.size());
    return all;
  }

  std::string dir_;
  std::string text_;
};

TEST_F(FileReaderTest, ReadsPlainAndGzipFiles) {
  const std::string plain = dir_ + "/a.txt", gz = dir_ + "/a.txt.gz";
  std::FILE* f = std::fopen(plain.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(text_.data(), 1, text_.size(), f);
  std::fclose(f);
  gzFile g = gzopen(gz.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, text_.data(), static_cast<unsigned>(text_.size()));
  gzclose(g);
  Status s;
  EXPECT_EQ(ReadAll(plain, &s), text_);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(ReadAll(gz, &s), text_);
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(FileReaderTest, TruncatedGzipIsAnError) {
  const std::string gz = dir_ + "/b.gz";
  gzFile g = gzopen(gz.c_str(), "wb");
  ASSERT_NE(g, nullptr);
  gzwrite(g, text_.data(), static_cast<unsigned>(text_.size()));
  gzclose(g);
  ASSERT_EQ(::truncate(gz.c_str(), 1000), 0);
  Status s;
  ReadAll(gz, &s);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
}

TEST_F(FileReaderTest, MissingFile) {
  FileReader r;
  const Status s = r.Open(dir_ + "/none");
  EXPECT_TRUE(s.IsIOError());
  EXPECT_NE(s.ToString().find("No such file"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace sundial::server
