#include "sundial/common/status.h"

#include <gtest/gtest.h>

namespace sundial {
namespace {

TEST(Status, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s.message(), "");
}

TEST(Status, CarriesCodeAndJoinedMessage) {
  Status s = Status::IOError("/data/wal.0", "No space left on device");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(s.message(), "/data/wal.0: No space left on device");
  EXPECT_EQ(s.ToString(), "IOError: /data/wal.0: No space left on device");
}

TEST(Status, CopyIsDeep) {
  Status a = Status::Corruption("bad crc");
  Status b = a;
  a = Status::OK();
  EXPECT_TRUE(b.IsCorruption());
  EXPECT_EQ(b.message(), "bad crc");
}

TEST(Status, WithContextPrefixesMessage) {
  EXPECT_EQ(Status::NotFound("series 7").WithContext("read").ToString(),
            "NotFound: read: series 7");
  EXPECT_TRUE(Status::OK().WithContext("read").ok());
}

Status FailsWith(Status s) {
  SUNDIAL_RETURN_IF_ERROR(s);
  return Status::InvalidArgument("reached the end");
}

TEST(Status, ReturnIfErrorPropagates) {
  EXPECT_TRUE(FailsWith(Status::Busy("x")).code() == Status::Code::kBusy);
  EXPECT_TRUE(FailsWith(Status::OK()).IsInvalidArgument());
}

TEST(StatusOr, HoldsValueOrStatus) {
  StatusOr<int> v(42);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v.value(), 42);
  StatusOr<int> e(Status::NotFound("x"));
  EXPECT_FALSE(e.ok());
  EXPECT_TRUE(e.status().IsNotFound());
}

}  // namespace
}  // namespace sundial
