#include "server/sd_notify.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

namespace sundial::server {
namespace {

// A bound datagram socket standing in for systemd's notify socket.
class Listener {
 public:
  // name: "@..." for the abstract namespace, else a path.
  explicit Listener(const std::string& name) : fd_(socket(AF_UNIX, SOCK_DGRAM, 0)) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, name.data(), name.size());
    if (name[0] == '@') addr.sun_path[0] = '\0';
    const socklen_t len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name.size());
    bound_ = bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) == 0;
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  }
  ~Listener() { close(fd_); }
  bool bound() const { return bound_; }
  std::string Receive() {
    char buf[4096];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    return n < 0 ? std::string("<nothing>") : std::string(buf, static_cast<size_t>(n));
  }

 private:
  const int fd_;
  bool bound_ = false;
};

std::string AbstractName() {
  return "@sundial-sd-notify-test-" + std::to_string(getpid());
}

TEST(SdNotifier, SendsOneDatagramToAnAbstractSocket) {
  const std::string name = AbstractName();
  Listener listener(name);
  ASSERT_TRUE(listener.bound());
  SdNotifier notifier(name, std::chrono::microseconds(0));
  ASSERT_TRUE(notifier.enabled());
  ASSERT_TRUE(notifier.Notify("READY=1\nSTATUS=Serving").ok());
  EXPECT_EQ(listener.Receive(), "READY=1\nSTATUS=Serving");
  ASSERT_TRUE(notifier.Notify("STOPPING=1").ok());
  EXPECT_EQ(listener.Receive(), "STOPPING=1");
}

TEST(SdNotifier, SendsToASocketPath) {
  char tmpl[] = "/tmp/sundial_notify_test_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string path = std::string(tmpl) + "/notify";
  {
    Listener listener(path);
    ASSERT_TRUE(listener.bound());
    SdNotifier notifier(path, std::chrono::microseconds(0));
    ASSERT_TRUE(notifier.Notify("WATCHDOG=1").ok());
    EXPECT_EQ(listener.Receive(), "WATCHDOG=1");
  }
  unlink(path.c_str());
  rmdir(tmpl);
}

TEST(SdNotifier, DisabledWithoutASocketAndErrorsWhenNobodyListens) {
  SdNotifier off("", std::chrono::microseconds(0));
  EXPECT_FALSE(off.enabled());
  EXPECT_TRUE(off.Notify("READY=1").ok());
  SdNotifier gone(AbstractName() + "-nobody", std::chrono::microseconds(0));
  const Status s = gone.Notify("READY=1");
  EXPECT_EQ(s.code(), Status::Code::kIOError);
  EXPECT_NE(s.message().find("-nobody"), std::string::npos) << s.message();
  SdNotifier too_long("/" + std::string(200, 'x'), std::chrono::microseconds(0));
  EXPECT_EQ(too_long.Notify("READY=1").code(), Status::Code::kInvalidArgument);
}

TEST(SdNotifier, FromEnvironmentReadsTheWatchdogOnlyForThisProcess) {
  setenv("NOTIFY_SOCKET", "@x", 1);
  setenv("WATCHDOG_USEC", "30000000", 1);
  unsetenv("WATCHDOG_PID");
  SdNotifier a = SdNotifier::FromEnvironment();
  EXPECT_TRUE(a.enabled());
  EXPECT_EQ(a.watchdog_timeout(), std::chrono::seconds(30));
  setenv("WATCHDOG_PID", std::to_string(getpid()).c_str(), 1);
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog_timeout(), std::chrono::seconds(30));
  setenv("WATCHDOG_PID", std::to_string(getpid() + 1).c_str(), 1);
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog_timeout().count(), 0);
  unsetenv("WATCHDOG_PID");
  setenv("WATCHDOG_USEC", "soon", 1);
  EXPECT_EQ(SdNotifier::FromEnvironment().watchdog_timeout().count(), 0);
  unsetenv("WATCHDOG_USEC");
  unsetenv("NOTIFY_SOCKET");
  EXPECT_FALSE(SdNotifier::FromEnvironment().enabled());
}

}  // namespace
}  // namespace sundial::server
