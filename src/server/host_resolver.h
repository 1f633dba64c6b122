// Host name resolution for the command-line tools (`sundiald import`,
// `sundiald export`, `sundiald --health`).
//
// Numeric addresses (IPv4, IPv6 without brackets) are parsed without any
// lookup, and "localhost" is 127.0.0.1 without one (a server bound to
// 0.0.0.0 does not answer on ::1). Any other name goes to getaddrinfo(3)
// (/etc/hosts, DNS, as the system's NSS configuration says) on a helper
// thread, so that the wait is bounded by a timeout like every other wait
// of the tools: getaddrinfo itself has none. Names in the reserved
// top-level domain "invalid" (RFC 6761 §6.4) fail at once, without a
// lookup. A fully static build (SUNDIAL_STATIC) needs the host's NSS
// libraries at run time for names; numeric addresses always work.
//
// Thread-safety: ResolveHost may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include <asio/ip/tcp.hpp>

#include "sundial/common/status.h"

namespace sundial::server {

inline constexpr std::chrono::milliseconds kResolveTimeout{10000};

// Sets *out to host's address with port. Of several addresses the first
// IPv4 one is taken (servers are usually bound to 0.0.0.0), else the
// first. NotFound "unknown host NAME: REASON" when the name does not
// resolve (or is reserved), InvalidArgument for an empty name,
// DeadlineExceeded when the lookup took longer than timeout (the helper
// thread is then left to finish on its own).
Status ResolveHost(const std::string& host, uint16_t port, std::chrono::milliseconds timeout,
                   asio::ip::tcp::endpoint* out);

}  // namespace sundial::server
