#include "server/watchdog.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>

#include <asio/post.hpp>
#include <gtest/gtest.h>

namespace sundial::server {
namespace {

// Counts WATCHDOG=1 datagrams on an abstract socket.
class PingCounter {
 public:
  PingCounter() : name_("@sundial-watchdog-test-" + std::to_string(getpid())) {
    fd_ = socket(AF_UNIX, SOCK_DGRAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, name_.data(), name_.size());
    addr.sun_path[0] = '\0';
    bound_ = bind(fd_, reinterpret_cast<sockaddr*>(&addr),
                  static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + name_.size())) == 0;
  }
  ~PingCounter() { close(fd_); }
  const std::string& name() const { return name_; }
  bool bound() const { return bound_; }
  // Pings received within `window` (ms).
  int Count(int window_ms) {
    int pings = 0;
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(window_ms);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
          end - std::chrono::steady_clock::now());
      if (left.count() <= 0) return pings;
      timeval tv{static_cast<time_t>(left.count() / 1000000),
                 static_cast<suseconds_t>(left.count() % 1000000)};
      setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      char buf[64];
      const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
      if (n == 10 && std::memcmp(buf, "WATCHDOG=1", 10) == 0) ++pings;
    }
  }

 private:
  const std::string name_;
  int fd_ = -1;
  bool bound_ = false;
};

TEST(Watchdog, PingsOnlyWhileEveryIoThreadAnswers) {
  PingCounter counter;
  ASSERT_TRUE(counter.bound());
  SdNotifier notifier(counter.name(), std::chrono::milliseconds(100));
  net::IoContextPool pool(2);
  pool.Start();
  Watchdog watchdog(&notifier, &pool, std::chrono::milliseconds(50));
  watchdog.Start();
  EXPECT_GE(counter.Count(400), 2);

  // Stall one I/O thread: the pings stop.
  std::atomic<bool> release{false};
  asio::post(pool.context(1), [&release] {
    while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  });
  counter.Count(150);  // a round that began before the stall may still ping
  EXPECT_EQ(counter.Count(400), 0);

  // Free it: they resume.
  release = true;
  EXPECT_GE(counter.Count(400), 2);
  watchdog.Stop();
  pool.Stop();
  pool.Join();
}

}  // namespace
}  // namespace sundial::server
