// The `sundiald --health[=URL]` probe: a container HEALTHCHECK or a script
// asks a running server whether it answers, with nothing but sundiald
// itself in the image (no curl, no shell).
//
// It sends `GET <path> HTTP/1.0` to the URL's host (a numeric address, or a
// name resolved as host_resolver.h says) and succeeds only on a 200 reply,
// all within `timeout` (the name lookup has its own wait of at most
// `timeout`).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "options.h"
#include "sundial/common/status.h"

namespace sundial::server {

// The URL probed when --health has no value: /api/version on the configured
// port, at the configured bind address, or at loopback when that is the
// wildcard (0.0.0.0 -> 127.0.0.1, :: -> ::1).
std::string DefaultHealthUrl(const Options& options);

// GETs `url` ("http://HOST[:PORT][/PATH]", HOST a numeric IPv4 address, a
// bracketed IPv6 one or a name; port 80 and path / by default). OK on HTTP
// 200; InvalidArgument for a malformed URL; NotFound for an unknown host;
// IOError for a refused or timed-out connection or any other status (the
// message says which).
Status CheckHealth(std::string_view url, std::chrono::milliseconds timeout);

}  // namespace sundial::server
