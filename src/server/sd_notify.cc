#include "sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace sundial::server {

namespace {

// A decimal environment variable, or 0 if unset or not a number.
uint64_t EnvUint(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return 0;
  char* end = nullptr;
  errno = 0;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (errno != 0 || *end != '\0') return 0;
  return x;
}

}  // namespace

SdNotifier SdNotifier::FromEnvironment() {
  const char* socket = std::getenv("NOTIFY_SOCKET");
  std::chrono::microseconds watchdog(EnvUint("WATCHDOG_USEC"));
  const uint64_t pid = EnvUint("WATCHDOG_PID");
  if (pid != 0 && pid != static_cast<uint64_t>(::getpid())) watchdog = {};
  return SdNotifier(socket ? socket : "", watchdog);
}

SdNotifier::SdNotifier(std::string socket_name, std::chrono::microseconds watchdog_timeout)
    : socket_name_(std::move(socket_name)), watchdog_timeout_(watchdog_timeout) {}

Status SdNotifier::Notify(std::string_view state) const {
  if (!enabled()) return Status::OK();
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  // An abstract name has no terminating NUL; a path keeps room for one.
  const bool abstract = socket_name_[0] == '@';
  if (socket_name_.size() + (abstract ? 0 : 1) > sizeof(addr.sun_path)) {
    return Status::InvalidArgument("NOTIFY_SOCKET name too long", socket_name_);
  }
  std::memcpy(addr.sun_path, socket_name_.data(), socket_name_.size());
  if (abstract) addr.sun_path[0] = '\0';
  const socklen_t len =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_name_.size());

  const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IOError("notify socket", std::strerror(errno));
  const ssize_t sent = ::sendto(fd, state.data(), state.size(), MSG_NOSIGNAL,
                                reinterpret_cast<const sockaddr*>(&addr), len);
  const int err = errno;
  ::close(fd);
  if (sent < 0) return Status::IOError("notify " + socket_name_, std::strerror(err));
  if (static_cast<size_t>(sent) != state.size()) {
    return Status::IOError("notify " + socket_name_, "short send");
  }
  return Status::OK();
}

}  // namespace sundial::server
