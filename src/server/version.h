// Version replies, shaped like OpenTSDB's (opentsdb-compat.md §2.7, §6.3).
//
// "version" is the OpenTSDB API level Sundial implements (2.4.1), so that
// tools comparing version numbers see a familiar one; Sundial's own version
// and revision are in the other fields.
#pragma once

#include <string>

namespace sundial::server {

inline constexpr char kOpenTsdbApiVersion[] = "2.4.1";

// The two-line telnet `version` reply, each line ending in '\n':
//   net.opentsdb.tools 2.4.1 built at revision <rev> (MINT)
//   Built on <date> by sundial@<host>:sundial-<version>
std::string TelnetVersionReply();

// The /api/version JSON object; every value is a string.
std::string VersionJson();

}  // namespace sundial::server
