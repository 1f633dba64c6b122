#include "http_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

#include <asio/ip/address.hpp>

#include "host_resolver.h"
#include "option_values.h"

namespace sundial::server {

namespace {

using Clock = std::chrono::steady_clock;

// Waits for `events` on fd for at most timeout; false on timeout or error.
bool WaitFor(int fd, short events, std::chrono::milliseconds timeout) {
  return WaitForFd(fd, events, Clock::now() + timeout);
}

bool IEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool WaitForFd(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(left));
    if (n > 0) return true;
    if (n < 0 && errno != EINTR) return false;
  }
}

bool ChunkedDecoder::Feed(std::string_view data,
                          const std::function<bool(std::string_view)>& on_body, bool* stop,
                          std::string* error) {
  pending_.append(data);
  size_t pos = 0;
  while (pos < pending_.size() && !done_) {
    if (left_ > 0) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, pending_.size() - pos));
      if (!on_body(std::string_view(pending_).substr(pos, n))) {
        *stop = true;
        return true;
      }
      pos += n;
      left_ -= n;
      if (left_ == 0) need_crlf_ = true;
      continue;
    }
    const size_t eol = pending_.find("\r\n", pos);
    if (eol == std::string::npos) {
      if (pending_.size() - pos > kMaxLineBytes) return (*error = "chunk header too long", false);
      break;
    }
    if (need_crlf_) {
      if (eol != pos) return (*error = "bad chunk trailer", false);
      need_crlf_ = false;
      pos = eol + 2;
      continue;
    }
    uint64_t size = 0;
    size_t i = pos;
    for (; i < eol && std::isxdigit(static_cast<unsigned char>(pending_[i])); ++i) {
      if (size >> 56) return (*error = "chunk size too large", false);
      const char h = pending_[i];
      size = size * 16 + static_cast<uint64_t>(h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10);
    }
    if (i == pos) return (*error = "bad chunk size", false);
    pos = eol + 2;
    if (size == 0) done_ = true;
    left_ = size;
  }
  pending_.erase(0, pos);
  return true;
}

Status ParseHttpUrl(std::string_view url, HttpUrl* out,
                    std::chrono::milliseconds resolve_timeout) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) {
    return Status::InvalidArgument("URL must start with http://, got", url);
  }
  std::string_view rest = url.substr(kScheme.size());
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  out->path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  out->host = std::string(authority);
  std::string_view host = authority;
  std::string_view port = "80";
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return Status::InvalidArgument("bad IPv6 host in", url);
    host = authority.substr(1, close - 1);
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return Status::InvalidArgument("bad host in", url);
      port = authority.substr(close + 2);
    }
  } else if (const size_t colon = authority.find(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  uint64_t p = 0;
  if (!ParseUint(port, 1, 65535, &p).ok()) return Status::InvalidArgument("bad port in", url);
  if (host.empty()) return Status::InvalidArgument("no host in", url);
  if (authority.front() == '[') {
    // Brackets hold an IPv6 literal only, never a name.
    std::error_code ec;
    const asio::ip::address address = asio::ip::make_address(std::string(host), ec);
    if (ec || !address.is_v6()) return Status::InvalidArgument("bad IPv6 host in", url);
    out->endpoint = asio::ip::tcp::endpoint(address, static_cast<uint16_t>(p));
    return Status::OK();
  }
  return ResolveHost(std::string(host), static_cast<uint16_t>(p), resolve_timeout,
                     &out->endpoint);
}

Status ParseToolUrl(std::string_view url, HttpUrl* out) { return ParseHttpUrl(url, out); }

TcpClient::~TcpClient() { Close(); }

void TcpClient::Close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

Status TcpClient::Connect(const asio::ip::tcp::endpoint& to, std::chrono::milliseconds timeout) {
  Close();
  peer_ = (to.address().is_v6() ? "[" + to.address().to_string() + "]"
                                : to.address().to_string()) +
          ":" + std::to_string(to.port());
  fd_ = ::socket(to.protocol().family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Status::IOError("socket", std::strerror(errno));
  if (::connect(fd_, to.data(), static_cast<socklen_t>(to.size())) != 0 && errno != EINPROGRESS) {
    return Status::IOError("connect " + peer_, std::strerror(errno));
  }
  if (!WaitFor(fd_, POLLOUT, timeout)) return Status::IOError("connect " + peer_, "timed out");
  int err = 0;
  socklen_t len = sizeof(err);
  ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) return Status::IOError("connect " + peer_, std::strerror(err));
  return Status::OK();
}

Status TcpClient::SendAll(std::string_view data, std::chrono::milliseconds timeout) {
  size_t sent = 0;
  while (sent < data.size()) {
    if (!WaitFor(fd_, POLLOUT, timeout)) return Status::IOError("send to " + peer_, "timed out");
    const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return Status::IOError("send to " + peer_, std::strerror(errno));
    }
    if (n > 0) sent += static_cast<size_t>(n);
  }
  return Status::OK();
}

Status TcpClient::Receive(std::string* out, std::chrono::milliseconds timeout) {
  for (;;) {
    if (!WaitFor(fd_, POLLIN, timeout)) return Status::IOError("read from " + peer_, "timed out");
    char buf[64 * 1024];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n == 0) return Status::NotFound("connection closed by " + peer_);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Status::IOError("read from " + peer_, std::strerror(errno));
    }
    out->append(buf, static_cast<size_t>(n));
    return Status::OK();
  }
}

Status HttpGet(const HttpUrl& url, std::string_view path_and_query,
               std::chrono::milliseconds timeout, int* status,
               const std::function<bool(std::string_view)>& on_body) {
  TcpClient c;
  SUNDIAL_RETURN_IF_ERROR(c.Connect(url.endpoint, timeout));
  std::string path = url.path == "/" ? "" : url.path;
  if (!path.empty() && path.back() == '/') path.pop_back();
  const std::string request = "GET " + path + std::string(path_and_query) +
                              " HTTP/1.1\r\nHost: " + url.host +
                              "\r\nUser-Agent: sundiald\r\nConnection: close\r\n\r\n";
  SUNDIAL_RETURN_IF_ERROR(c.SendAll(request, timeout));
  std::string buf;
  size_t header_end = std::string::npos;
  while ((header_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > (64u << 10)) return Status::IOError("reply headers too long from", c.peer());
    SUNDIAL_RETURN_IF_ERROR(c.Receive(&buf, timeout));
  }
  const std::string_view head(buf.data(), header_end);
  if (head.size() < 12 || head.substr(0, 5) != "HTTP/") {
    return Status::IOError("not an HTTP reply from", c.peer());
  }
  *status = std::atoi(std::string(head.substr(9, 3)).c_str());
  bool chunked = false;
  uint64_t length = UINT64_MAX;
  for (size_t p = head.find("\r\n"); p != std::string_view::npos;) {
    const size_t e = head.find("\r\n", p + 2);
    const std::string_view line = head.substr(p + 2, (e == std::string_view::npos ? head.size() : e) - p - 2);
    const size_t colon = line.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view name = line.substr(0, colon);
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (IEquals(name, "transfer-encoding") && IEquals(value, "chunked")) chunked = true;
      if (IEquals(name, "content-length")) length = std::strtoull(std::string(value).c_str(), nullptr, 10);
    }
    p = e;
  }
  std::string data = buf.substr(header_end + 4);
  ChunkedDecoder dechunker;
  uint64_t got = 0;
  for (;;) {
    if (chunked) {
      bool stop = false;
      std::string error;
      if (!dechunker.Feed(data, on_body, &stop, &error)) {
        return Status::IOError("bad chunked reply from " + c.peer(), error);
      }
      if (stop || dechunker.done()) return Status::OK();
    } else {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(data.size(), length - got));
      got += n;
      if (n > 0 && !on_body(std::string_view(data).substr(0, n))) return Status::OK();
      if (got >= length) return Status::OK();
    }
    data.clear();
    const Status s = c.Receive(&data, timeout);
    if (s.IsNotFound()) {
      if (chunked || (length != UINT64_MAX && got < length)) {
        return Status::IOError("reply truncated by", c.peer());
      }
      return Status::OK();
    }
    SUNDIAL_RETURN_IF_ERROR(s);
  }
}

Status HttpGetBody(const HttpUrl& url, std::string_view path_and_query,
                   std::chrono::milliseconds timeout, size_t max_bytes, int* status,
                   std::string* body) {
  body->clear();
  bool too_big = false;
  SUNDIAL_RETURN_IF_ERROR(HttpGet(url, path_and_query, timeout, status, [&](std::string_view p) {
    if (body->size() + p.size() > max_bytes) {
      too_big = true;
      return false;
    }
    body->append(p);
    return true;
  }));
  if (too_big) {
    return Status::ResourceExhausted("reply larger than " + std::to_string(max_bytes) + " bytes");
  }
  return Status::OK();
}

std::string UrlEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace sundial::server
