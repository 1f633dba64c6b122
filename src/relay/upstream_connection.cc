#include "upstream_connection.h"

#include <cerrno>
#include <algorithm>
#include <cstring>

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#ifdef __linux__
#include <linux/sockios.h>  // SIOCOUTQ
#endif
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sundial::relay {
namespace {

constexpr size_t kReadChunk = 16 * 1024;
// How often the send queue is looked at while waiting for acknowledgements:
// from 1 ms (loopback and LAN) doubling up to 20 ms (slow links).
constexpr std::chrono::milliseconds kFirstAckPoll{1};
constexpr std::chrono::milliseconds kMaxAckPoll{20};

int RemainingMs(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return left.count() <= 0 ? 0 : static_cast<int>(std::min<int64_t>(left.count(), 1 << 30));
}

}  // namespace

UpstreamConnection::UpstreamConnection(std::string host, uint16_t port)
    : host_(std::move(host)),
      port_(port),
      host_header_((host_.find(':') != std::string::npos ? "[" + host_ + "]" : host_) + ":" +
                   std::to_string(port)) {}

UpstreamConnection::~UpstreamConnection() { Close(); }

void UpstreamConnection::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  in_.clear();
  replies_.Reset();
}

void UpstreamConnection::Abort() {
  if (fd_ >= 0) {
    const linger reset{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof(reset));
  }
  Close();
}

Status UpstreamConnection::Wait(bool write, Clock::time_point deadline) {
  for (;;) {
    pollfd p{fd_, static_cast<short>(write ? POLLOUT : POLLIN), 0};
    const int ms = RemainingMs(deadline);
    const int r = ::poll(&p, 1, ms);
    if (r > 0) return Status::OK();
    if (r == 0) return Status::DeadlineExceeded("upstream " + host_header_, "timed out");
    if (errno != EINTR) return Status::IOError("poll", std::strerror(errno));
  }
}

Status UpstreamConnection::Connect(Clock::time_point deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  const std::string port = std::to_string(port_);
  const int gai = ::getaddrinfo(host_.c_str(), port.c_str(), &hints, &res);
  if (gai != 0) return Status::Unavailable("resolve " + host_, ::gai_strerror(gai));
  Status last = Status::Unavailable("connect " + host_header_, "no address");
  for (addrinfo* ai = res; ai != nullptr; ai = ai->ai_next) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    int rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      fd_ = fd;
      Status w = Wait(true, deadline);
      fd_ = -1;
      int err = 0;
      socklen_t len = sizeof(err);
      if (w.ok() && ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err == 0) {
        rc = 0;
      } else {
        last = w.ok() ? Status::Unavailable("connect " + host_header_, std::strerror(err)) : w;
      }
    } else if (rc != 0) {
      last = Status::Unavailable("connect " + host_header_, std::strerror(errno));
    }
    if (rc == 0) {
      ::freeaddrinfo(res);
      fd_ = fd;
      in_.clear();
      return Status::OK();
    }
    ::close(fd);
  }
  ::freeaddrinfo(res);
  return last;
}

Status UpstreamConnection::WriteAll(std::string_view data, Clock::time_point deadline,
                                    int flags) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL | flags);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      SUNDIAL_RETURN_IF_ERROR(Wait(true, deadline));
      continue;
    }
    return Status::Unavailable("send to " + host_header_, std::strerror(errno));
  }
  return Status::OK();
}

bool UpstreamConnection::DrainWaiting(std::string* reply) {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      if (reply != nullptr && reply->empty()) {
        std::string_view s(buf, static_cast<size_t>(n));
        *reply = std::string(s.substr(0, std::min<size_t>(s.find('\n'), 200)));
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

Status UpstreamConnection::WaitAcknowledged(Clock::time_point deadline, std::string* reply) {
#ifdef SIOCOUTQ
  std::chrono::milliseconds step = kFirstAckPoll;
  bool peer_closed = false;  // its FIN came: poll only for errors from now on
  for (;;) {
    int unacked = 0;
    if (::ioctl(fd_, SIOCOUTQ, &unacked) != 0) {
      // Not available (e.g. an emulator that lacks the ioctl): a complete
      // write counts as acknowledged, as on systems without SIOCOUTQ.
      return Status::OK();
    }
    if (unacked == 0) return Status::OK();
    int err = 0;
    socklen_t len = sizeof(err);
    if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err != 0) {
      return Status::Unavailable("send to " + host_header_, std::strerror(err));
    }
    const int left = RemainingMs(deadline);
    if (left == 0) {
      return Status::DeadlineExceeded("upstream " + host_header_,
                                      "did not acknowledge " + std::to_string(unacked) +
                                          " bytes in time");
    }
    pollfd p{fd_, static_cast<short>(peer_closed ? 0 : POLLIN), 0};
    const int r = ::poll(&p, 1, std::min<int>(left, static_cast<int>(step.count())));
    if (r < 0 && errno != EINTR) return Status::IOError("poll", std::strerror(errno));
    if (r > 0 && (p.revents & POLLIN) != 0 && !DrainWaiting(reply)) peer_closed = true;
    if (r > 0 && (p.revents & (POLLERR | POLLHUP)) != 0) {
      ::ioctl(fd_, SIOCOUTQ, &unacked);
      if (unacked == 0) return Status::OK();  // acknowledged before it broke
      return Status::Unavailable("upstream " + host_header_,
                                 "closed the connection with " + std::to_string(unacked) +
                                     " bytes unacknowledged");
    }
    step = std::min(step * 2, kMaxAckPoll);
  }
#else
  (void)deadline;
  (void)reply;
  return Status::OK();
#endif
}

Status UpstreamConnection::SendLines(std::string_view lines, std::chrono::milliseconds timeout,
                                     std::string* reply) {
  const Clock::time_point deadline = Clock::now() + timeout;
  if (fd_ >= 0 && !DrainWaiting(reply)) Close();  // closed by the upstream: reopen
  if (fd_ < 0) SUNDIAL_RETURN_IF_ERROR(Connect(deadline));
  Status s = WriteAll(lines, deadline);
  if (s.ok()) s = WaitAcknowledged(deadline, reply);
  if (!s.ok()) Abort();
  return s;
}

Status UpstreamConnection::ReadReplies() {
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) {
      if (!replies_.Feed(std::string_view(buf, static_cast<size_t>(n)))) {
        return Status::Corruption("reply from " + host_header_,
                                  "a line longer than " +
                                      std::to_string(TelnetReplyParser::kMaxLine) +
                                      " bytes: not a telnet upstream");
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return Status::OK();
    return Status::Unavailable("upstream " + host_header_,
                               n == 0 ? std::string("closed the connection")
                                      : std::string(std::strerror(errno)));
  }
}

Status UpstreamConnection::WaitVersionReply(Clock::time_point deadline) {
  while (!replies_.complete()) {
    Status s = Wait(false, deadline);
    if (s.code() == Status::Code::kDeadlineExceeded) {
      return Status::DeadlineExceeded("upstream " + host_header_,
                                      "no reply to `version` in time (does it answer the "
                                      "telnet version command?)");
    }
    SUNDIAL_RETURN_IF_ERROR(s);
    s = ReadReplies();
    if (!s.ok() && !replies_.complete()) return s;
  }
  return Status::OK();
}

Status UpstreamConnection::SendLinesAwaitVersion(std::string_view lines,
                                                 std::chrono::milliseconds timeout,
                                                 const TelnetReplyParser** replies) {
  static constexpr std::string_view kVersion = "version\n";
#ifdef MSG_MORE
  constexpr int kMore = MSG_MORE;  // one segment for the last lines and the command
#else
  constexpr int kMore = 0;
#endif
  const Clock::time_point deadline = Clock::now() + timeout;
  *replies = &replies_;
  replies_.StartBatch();
  if (fd_ >= 0 && !ReadReplies().ok()) Close();  // closed by the upstream: reopen
  if (fd_ < 0) SUNDIAL_RETURN_IF_ERROR(Connect(deadline));
  Status s = WriteAll(lines, deadline, kMore);
  if (s.ok()) s = WriteAll(kVersion, deadline);
  if (s.ok()) s = WaitVersionReply(deadline);
  if (!s.ok()) Abort();
  return s;
}

Status UpstreamConnection::Post(const std::string& path, const std::string& headers,
                                std::string_view body, std::chrono::milliseconds timeout,
                                HttpResponse* out) {
  const Clock::time_point deadline = Clock::now() + timeout;
  if (fd_ >= 0 && !DrainWaiting(nullptr)) Close();  // the upstream closed an idle connection
  if (fd_ < 0) SUNDIAL_RETURN_IF_ERROR(Connect(deadline));
  std::string head = "POST " + path + " HTTP/1.1\r\nHost: " + host_header_ +
                     "\r\nUser-Agent: sundial-relay\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n" + headers + "\r\n";
  Status s = WriteAll(head, deadline);
  if (s.ok()) s = WriteAll(body, deadline);
  in_.clear();
  while (s.ok()) {
    size_t consumed = 0;
    std::string error;
    bool eof = false;
    s = Wait(false, deadline);
    if (!s.ok()) break;
    const size_t old = in_.size();
    in_.resize(old + kReadChunk);
    const ssize_t n = ::recv(fd_, &in_[old], kReadChunk, 0);
    in_.resize(old + (n > 0 ? static_cast<size_t>(n) : 0));
    if (n == 0) eof = true;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      s = Status::Unavailable("recv from " + host_header_, std::strerror(errno));
      break;
    }
    const ParseResult r = ParseHttpResponse(in_, eof, out, &consumed, &error);
    if (r == ParseResult::kComplete) {
      if (!out->keep_alive || eof || consumed != in_.size()) Close();
      in_.clear();
      return Status::OK();
    }
    if (r == ParseResult::kBad) {
      s = Status::Corruption("response from " + host_header_, error);
    } else if (eof) {
      s = Status::Unavailable("upstream " + host_header_, "closed the connection");
    }
  }
  Close();
  return s;
}

}  // namespace sundial::relay
