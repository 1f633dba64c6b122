#include "host_resolver.h"

#include <netdb.h>
#include <sys/socket.h>

#include <cctype>
#include <memory>
#include <thread>
#include <utility>

#include <asio/ip/address.hpp>

#include "sundial/common/mutex.h"

namespace sundial::server {

namespace {

bool IEndsWith(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const char a = static_cast<char>(std::tolower(static_cast<unsigned char>(
        s[s.size() - suffix.size() + i])));
    if (a != suffix[i]) return false;
  }
  return true;
}

// RFC 6761 §6.4: "invalid" and names under it never resolve.
bool ReservedInvalid(std::string host) {
  if (!host.empty() && host.back() == '.') host.pop_back();
  return IEndsWith(host, ".invalid") || (host.size() == 7 && IEndsWith(host, "invalid"));
}

// One lookup, shared by the waiting caller and the helper thread: the
// caller may give up (timeout) while the thread still runs, so the last
// of the two to finish frees it. This is why a shared_ptr is used here.
struct Lookup {
  Mutex mu;
  CondVar cv{&mu};
  bool done GUARDED_BY(mu) = false;
  int rc GUARDED_BY(mu) = 0;
  asio::ip::tcp::endpoint endpoint GUARDED_BY(mu);
};

void RunLookup(const std::shared_ptr<Lookup>& lookup, const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  // No AI_ADDRCONFIG: it ignores loopback, so on a host whose only
  // interface is lo a name of 127.0.0.1 would not resolve.
  addrinfo* res = nullptr;
  const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res);
  asio::ip::tcp::endpoint chosen;
  bool found = false;
  for (int pass = 0; rc == 0 && pass < 2 && !found; ++pass) {
    for (addrinfo* ai = res; ai != nullptr && !found; ai = ai->ai_next) {
      if (ai->ai_family == AF_INET && pass == 0) {
        const auto* sin = reinterpret_cast<const sockaddr_in*>(ai->ai_addr);
        chosen = asio::ip::tcp::endpoint(
            asio::ip::address_v4(ntohl(sin->sin_addr.s_addr)), port);
        found = true;
      } else if (ai->ai_family == AF_INET6 && pass == 1) {
        const auto* sin6 = reinterpret_cast<const sockaddr_in6*>(ai->ai_addr);
        asio::ip::address_v6::bytes_type bytes;
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = sin6->sin6_addr.s6_addr[i];
        chosen = asio::ip::tcp::endpoint(asio::ip::address_v6(bytes, sin6->sin6_scope_id), port);
        found = true;
      }
    }
  }
  if (res != nullptr) ::freeaddrinfo(res);
  MutexLock l(&lookup->mu);
  lookup->rc = rc != 0 ? rc : (found ? 0 : EAI_NONAME);
  lookup->endpoint = chosen;
  lookup->done = true;
  lookup->cv.SignalAll();
}

}  // namespace

Status ResolveHost(const std::string& host, uint16_t port, std::chrono::milliseconds timeout,
                   asio::ip::tcp::endpoint* out) {
  if (host.empty()) return Status::InvalidArgument("empty host name");
  std::error_code ec;
  const asio::ip::address numeric = asio::ip::make_address(host, ec);
  if (!ec) {
    *out = asio::ip::tcp::endpoint(numeric, port);
    return Status::OK();
  }
  std::string lower;
  for (char c : host) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "localhost" || lower == "localhost.") {
    *out = asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), port);
    return Status::OK();
  }
  if (ReservedInvalid(lower)) {
    return Status::NotFound("unknown host " + host, "a reserved name (RFC 6761), never resolved");
  }
  auto lookup = std::make_shared<Lookup>();
  std::thread([lookup, host, port] { RunLookup(lookup, host, port); }).detach();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  MutexLock l(&lookup->mu);
  while (!lookup->done && std::chrono::steady_clock::now() < deadline) {
    lookup->cv.WaitUntil(deadline);
  }
  if (!lookup->done) {
    return Status::DeadlineExceeded("resolve " + host,
                                    "no answer within " + std::to_string(timeout.count()) + " ms");
  }
  if (lookup->rc != 0) {
    return Status::NotFound("unknown host " + host,
                            lookup->rc == EAI_SYSTEM ? "system error" : ::gai_strerror(lookup->rc));
  }
  *out = lookup->endpoint;
  return Status::OK();
}

}  // namespace sundial::server
