// TargetSpec: one upstream the relay forwards to, parsed from a URL.
//
// Syntax (README "Scaling out"): the scheme names the protocol
//   telnet://host:port                 OpenTSDB `put` lines over TCP
//   http://host:port[/path]            OpenTSDB POST /api/put (path defaults to /api/put)
//   remote-write://host:port/path      Prometheus remote_write (protobuf + snappy) over HTTP
//   influx://host:port/write?db=NAME   InfluxDB line protocol over HTTP
// and these query parameters are Sundial's own (removed before the URL is
// used; each may repeat where it makes sense):
//   include=GLOB, exclude=GLOB   metric patterns (* matches any run); a point
//                                is sent if it matches some include (or there
//                                is none) and no exclude
//   tag=KEY=VALUE                a tag added to every point (replaces one of
//                                the same key)
//   batch=N                      points per request (default relay.batch_size)
//   timeout=DURATION             per request (default relay.timeout)
//   max_pending=BYTES            disk budget of unsent WAL (default
//                                relay.max_pending_bytes)
//   bearer=TOKEN                 Authorization: Bearer TOKEN
//   basic=USER:PASSWORD          Authorization: Basic base64(USER:PASSWORD)
//   ack=tcp|version              telnet only: when a batch counts as delivered
//                                (TelnetAck; default tcp)
// Values are percent-decoded. Every other parameter is passed upstream.
// USER:PASSWORD@ before the host is the same as basic=USER:PASSWORD (HTTP
// protocols only; at most one of the three). https is refused: no TLS
// library is linked.
//
// Secrets never reach logs, errors or status: `display` and every parse
// error carry the URL with credentials masked (MaskTargetUrl).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::relay {

enum class Protocol : uint8_t { kTelnet, kHttpPut, kRemoteWrite, kInflux };

// When a telnet batch counts as delivered.
enum class TelnetAck : uint8_t {
  kTcp,      // the upstream's TCP acknowledged every byte (SIOCOUTQ == 0): any
             // telnet listener, but lost if the upstream process dies before
             // reading what its kernel took
  kVersion,  // a `version` command is sent after the batch and its reply has
             // arrived: the upstream process read every line (OpenTSDB,
             // sundiald; not VictoriaMetrics, which never answers it)
};

// "telnet", "http", "remote-write", "influx".
const char* ProtocolName(Protocol p);

struct TargetSpec {
  Protocol protocol = Protocol::kHttpPut;
  std::string host;                 // name or address (IPv6 without brackets)
  uint16_t port = 0;
  std::string path;                 // HTTP request target: path plus upstream query
  std::string display;              // the URL without Sundial's parameters, secrets masked
  std::string id;                   // stable, file-name safe: names the position file
                                    // (derived from display: a new password keeps it)
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::vector<std::pair<std::string, std::string>> add_tags;
  uint32_t batch_points = 0;        // 0 = the relay's default
  std::chrono::milliseconds timeout{0};  // 0 = the relay's default
  uint64_t max_pending_bytes = 0;   // 0 = the relay's default
  std::string authorization;        // the Authorization header value, or empty
  TelnetAck ack = TelnetAck::kTcp;  // telnet only
};

// The URL with its credentials replaced by ***: the password of
// USER:PASSWORD@, the values of bearer= and basic= (basic keeps the user),
// and the values of upstream parameters named like secrets (p, authKey,
// anything with token, pass, pwd, secret, key, auth, sig or credential in
// the name, case-insensitive). Everything else is kept as written.
std::string MaskTargetUrl(std::string_view url);

// Parses one target URL. InvalidArgument says what is wrong (with the URL
// masked).
Status ParseTarget(std::string_view url, TargetSpec* out);
// Parses a comma-separated list (blanks around entries ignored; empty = none).
Status ParseTargetList(std::string_view list, std::vector<TargetSpec>* out);

// Whether `s` matches `pattern`, where * matches any run of characters.
bool GlobMatch(std::string_view pattern, std::string_view s);
// Whether the target forwards points of this metric.
bool MetricSelected(const TargetSpec& spec, std::string_view metric);

}  // namespace sundial::relay
