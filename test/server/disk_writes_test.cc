#include "disk_writes.h"

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

TEST(DiskWrites, ParsesWriteBytes) {
  const char* text =
      "rchar: 6976\nwchar: 10\nsyscr: 10\nsyscw: 1\nread_bytes: 4096\n"
      "write_bytes: 123456789\ncancelled_write_bytes: 0\n";
  uint64_t v = 0;
  ASSERT_TRUE(ParseProcIoWriteBytes(text, &v));
  EXPECT_EQ(v, 123456789u);
  ASSERT_TRUE(ParseProcIoWriteBytes("write_bytes: 18446744073709551615", &v));
  EXPECT_EQ(v, UINT64_MAX);
}

TEST(DiskWrites, RejectsMissingOrMalformed) {
  uint64_t v = 7;
  EXPECT_FALSE(ParseProcIoWriteBytes("", &v));
  EXPECT_FALSE(ParseProcIoWriteBytes("cancelled_write_bytes: 5\n", &v));
  EXPECT_FALSE(ParseProcIoWriteBytes("write_bytes: \n", &v));
  EXPECT_FALSE(ParseProcIoWriteBytes("write_bytes: 12x\n", &v));
  EXPECT_FALSE(ParseProcIoWriteBytes("write_bytes: -1\n", &v));
  EXPECT_FALSE(ParseProcIoWriteBytes("write_bytes: 18446744073709551616\n", &v));
  EXPECT_EQ(v, 7u);
}

TEST(DiskWrites, ThisProcessOnLinux) {
  uint64_t v = 0;
  if (!ProcessWriteBytes(&v)) GTEST_SKIP() << "/proc/self/io is not readable here";
  SUCCEED() << v;
}

}  // namespace
}  // namespace sundial::server
