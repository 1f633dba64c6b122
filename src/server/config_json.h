// The body of GET /api/config: Sundial's effective options in the shape of
// OpenTSDB 2.4's ConfigRpc (opentsdb-compat.md §6.3), a flat JSON object of
// string values with sorted keys:
//
//   {"http.gzip_responses":"true","listen.port":"4242",...,
//    "relay.targets":"http://up:4242?bearer=********"}
//
// Keys are Sundial's config keys (README "Configuration"), every one of
// them, valued as the server runs: the default, else the config file's,
// else the command line's. Secrets are masked with "********" as OpenTSDB
// masks keys containing "PASS": the values of keys naming a password,
// token or secret, and the bearer= and basic= credentials inside relay
// target URLs.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "options.h"

namespace sundial::server {

inline constexpr std::string_view kMaskedValue = "********";

// The value of key as /api/config shows it (masked if it is a secret).
std::string MaskedConfigValue(std::string_view key, std::string_view value);

// The JSON object described above.
std::string ConfigJson(const Options& options);

}  // namespace sundial::server
