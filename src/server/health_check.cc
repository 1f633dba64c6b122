#include "health_check.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <asio/ip/address.hpp>
#include <asio/ip/tcp.hpp>

#include "http_client.h"

namespace sundial::server {

namespace {

using Clock = std::chrono::steady_clock;

using Target = HttpUrl;

Status Probe(int fd, const Target& t, Clock::time_point deadline) {
  const std::string where = t.endpoint.address().to_string() + ":" +
                            std::to_string(t.endpoint.port());
  if (::connect(fd, t.endpoint.data(), static_cast<socklen_t>(t.endpoint.size())) != 0 &&
      errno != EINPROGRESS) {
    return Status::IOError("connect " + where, std::strerror(errno));
  }
  if (!WaitForFd(fd, POLLOUT, deadline)) return Status::IOError("connect " + where, "timed out");
  int err = 0;
  socklen_t len = sizeof(err);
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) return Status::IOError("connect " + where, std::strerror(err));

  const std::string request = "GET " + t.path + " HTTP/1.0\r\nHost: " + t.host +
                              "\r\nUser-Agent: sundiald-health\r\nConnection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    if (!WaitForFd(fd, POLLOUT, deadline)) return Status::IOError("send " + where, "timed out");
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return Status::IOError("send " + where, std::strerror(errno));
    }
    if (n > 0) sent += static_cast<size_t>(n);
  }
  // The status line is all we need: "HTTP/1.x 200 ...".
  std::string reply;
  while (reply.find('\n') == std::string::npos) {
    if (!WaitForFd(fd, POLLIN, deadline)) return Status::IOError("read " + where, "timed out");
    char buf[512];
    const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Status::IOError("read " + where, std::strerror(errno));
    }
    reply.append(buf, static_cast<size_t>(n));
  }
  const std::string line = reply.substr(0, reply.find_first_of("\r\n"));
  if (line.size() < 12 || line.compare(0, 5, "HTTP/") != 0 || line.compare(8, 4, " 200") != 0) {
    return Status::IOError("GET " + t.path + " from " + where + " answered",
                           line.empty() ? "nothing" : line);
  }
  return Status::OK();
}

}  // namespace

std::string DefaultHealthUrl(const Options& options) {
  std::string host = options.listener.bind_address;
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return "http://" + host + ":" + std::to_string(options.listener.port) + "/api/version";
}

Status CheckHealth(std::string_view url, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  Target target;
  SUNDIAL_RETURN_IF_ERROR(ParseHttpUrl(url, &target, timeout));
  const int fd = ::socket(target.endpoint.protocol().family(),
                          SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return Status::IOError("socket", std::strerror(errno));
  const Status s = Probe(fd, target, deadline);
  ::close(fd);
  return s;
}

}  // namespace sundial::server
