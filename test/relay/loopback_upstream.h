// A loopback TCP upstream for the relay tests: it accepts connections on
// 127.0.0.1 (an ephemeral port) in its own thread and either keeps every
// byte (telnet; with a script, it answers each line as the script says) or
// answers each HTTP request with the next scripted reply (then 204s),
// keeping the bodies.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sundial::relay::testing {

// What a scripted telnet upstream does after reading one line.
struct TelnetAnswer {
  std::string reply;   // written back at once (may be empty)
  bool close = false;  // then closes the connection, reading nothing more
};
// Called on the upstream's thread with each complete line (without '\n').
using TelnetScript = std::function<TelnetAnswer(const std::string& line)>;

class LoopbackUpstream {
 public:
  explicit LoopbackUpstream(TelnetScript script) : LoopbackUpstream(false) {
    std::lock_guard<std::mutex> l(mu_);
    script_ = std::move(script);
  }
  explicit LoopbackUpstream(bool http, std::deque<std::string> replies = {})
      : http_(http), replies_(std::move(replies)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    ::listen(fd_, 8);
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~LoopbackUpstream() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  uint16_t port() const { return port_; }
  std::string bytes() {
    std::lock_guard<std::mutex> l(mu_);
    return bytes_;
  }
  std::vector<std::string> bodies() {
    std::lock_guard<std::mutex> l(mu_);
    return bodies_;
  }

 private:
  void Serve() {
    std::vector<int> conns;
    std::vector<std::string> bufs;
    while (!stop_) {
      std::vector<pollfd> p{{fd_, POLLIN, 0}};
      for (int c : conns) p.push_back({c, POLLIN, 0});
      if (::poll(p.data(), p.size(), 20) <= 0) continue;
      if (p[0].revents & POLLIN) {
        const int c = ::accept(fd_, nullptr, nullptr);
        if (c >= 0) {
          conns.push_back(c);
          bufs.emplace_back();
        }
      }
      // Only the connections that were polled (a new one waits a turn).
      for (size_t i = 0; i + 1 < p.size(); ++i) {
        if (!(p[i + 1].revents & (POLLIN | POLLHUP))) continue;
        char buf[65536];
        const ssize_t n = ::recv(conns[i], buf, sizeof(buf), 0);
        if (n <= 0) {
          ::close(conns[i]);
          conns.erase(conns.begin() + static_cast<long>(i));
          bufs.erase(bufs.begin() + static_cast<long>(i));
          break;
        }
        std::lock_guard<std::mutex> l(mu_);
        if (!http_) {
          bytes_.append(buf, static_cast<size_t>(n));
          if (!script_) continue;
          bufs[i].append(buf, static_cast<size_t>(n));
          bool close = false;
          for (size_t nl; !close && (nl = bufs[i].find('\n')) != std::string::npos;) {
            const TelnetAnswer a = script_(bufs[i].substr(0, nl));
            bufs[i].erase(0, nl + 1);
            (void)::send(conns[i], a.reply.data(), a.reply.size(), MSG_NOSIGNAL);
            close = a.close;
          }
          if (close) {
            ::close(conns[i]);
            conns.erase(conns.begin() + static_cast<long>(i));
            bufs.erase(bufs.begin() + static_cast<long>(i));
            break;
          }
          continue;
        }
        bufs[i].append(buf, static_cast<size_t>(n));
        for (;;) {  // every complete request in the buffer
          const size_t head = bufs[i].find("\r\n\r\n");
          if (head == std::string::npos) break;
          const size_t cl = bufs[i].find("Content-Length: ");
          const size_t len = cl < head ? std::stoul(bufs[i].substr(cl + 16)) : 0;
          if (bufs[i].size() < head + 4 + len) break;
          bodies_.push_back(bufs[i].substr(head + 4, len));
          bufs[i].erase(0, head + 4 + len);
          std::string reply = "HTTP/1.1 204 No Content\r\n\r\n";
          if (!replies_.empty()) {
            reply = replies_.front();
            replies_.pop_front();
          }
          (void)::send(conns[i], reply.data(), reply.size(), MSG_NOSIGNAL);
        }
      }
    }
    for (int c : conns) ::close(c);
  }

  const bool http_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::deque<std::string> replies_;
  TelnetScript script_;
  std::string bytes_;
  std::vector<std::string> bodies_;
  std::thread thread_;
};

}  // namespace sundial::relay::testing
