#include "server/data_dir_lock.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

TEST(DataDirLock, CreatesDirAndExcludesASecondHolder) {
  char tmpl[] = "/tmp/sundial_lock_test_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = std::string(tmpl) + "/a/b";
  {
    DataDirLock first;
    ASSERT_TRUE(first.Acquire(dir).ok());
    struct stat st;
    ASSERT_EQ(stat(dir.c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    DataDirLock second;
    Status s = second.Acquire(dir);
    ASSERT_EQ(s.code(), Status::Code::kBusy);
    EXPECT_NE(s.message().find("in use"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find(std::to_string(getpid())), std::string::npos) << s.message();
  }
  DataDirLock again;  // released with the first holder
  EXPECT_TRUE(again.Acquire(dir).ok());
  unlink((dir + "/sundiald.lock").c_str());
  rmdir(dir.c_str());
  rmdir((std::string(tmpl) + "/a").c_str());
  rmdir(tmpl);
}

TEST(DataDirLock, FileInTheWayIsAnError) {
  char tmpl[] = "/tmp/sundial_lock_test_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string file = std::string(tmpl) + "/f";
  FILE* f = fopen(file.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);
  DataDirLock lock;
  EXPECT_FALSE(lock.Acquire(file).ok());
  unlink(file.c_str());
  rmdir(tmpl);
}

}  // namespace
}  // namespace sundial::server
