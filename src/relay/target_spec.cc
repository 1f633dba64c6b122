#include "sundial/relay/target_spec.h"

#include <algorithm>
#include <cstdio>

#include "sundial/common/crc32c.h"

namespace sundial::relay {
namespace {

constexpr std::string_view kMasked = "***";

// Errors show the URL with its credentials masked.
Status Bad(std::string_view url, std::string_view why) {
  return Status::InvalidArgument("relay target \"" + MaskTargetUrl(url) + "\"", why);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool PercentDecode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    const int hi = HexDigit(in[i + 1]), lo = HexDigit(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Whether an upstream query parameter carries a secret, by its name:
// InfluxDB's p, VictoriaMetrics' authKey, and anything named like a token,
// password, key, secret or signature.
bool SecretParam(std::string_view key) {
  std::string k;
  if (!PercentDecode(key, &k)) k = std::string(key);  // %70 is p too
  for (char& c : k) c = Lower(c);
  if (k == "p" || k == "bearer" || k == "basic") return true;
  for (std::string_view word : {"token", "pass", "pwd", "secret", "key", "auth", "sig", "credential"}) {
    if (k.find(word) != std::string::npos) return true;
  }
  return false;
}

// A number with an optional unit suffix; each unit is (name, multiplier).
bool ParseScaled(std::string_view v, const std::vector<std::pair<std::string_view, uint64_t>>& units,
                 uint64_t* out) {
  size_t i = 0;
  uint64_t n = 0;
  while (i < v.size() && v[i] >= '0' && v[i] <= '9') {
    if (n > (UINT64_MAX - 9) / 10) return false;
    n = n * 10 + static_cast<uint64_t>(v[i++] - '0');
  }
  if (i == 0) return false;
  const std::string_view unit = v.substr(i);
  for (const auto& [name, mult] : units) {
    if (unit == name) {
      if (mult != 0 && n > UINT64_MAX / mult) return false;
      *out = n * mult;
      return true;
    }
  }
  return false;
}

bool ParseDurationMs(std::string_view v, uint64_t* ms) {
  return ParseScaled(v, {{"", 1}, {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}}, ms);
}

bool ParseByteCount(std::string_view v, uint64_t* bytes) {
  return ParseScaled(v,
                     {{"", 1}, {"B", 1}, {"KiB", 1ull << 10}, {"MiB", 1ull << 20},
                      {"GiB", 1ull << 30}, {"KB", 1000}, {"MB", 1000000}, {"GB", 1000000000}},
                     bytes);
}

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t x = (uint32_t{static_cast<unsigned char>(in[i])} << 16) |
                       (uint32_t{static_cast<unsigned char>(in[i + 1])} << 8) |
                       static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out.push_back(kAlphabet[(x >> s) & 63]);
  }
  const size_t rest = in.size() - i;
  if (rest > 0) {
    uint32_t x = uint32_t{static_cast<unsigned char>(in[i])} << 16;
    if (rest == 2) x |= uint32_t{static_cast<unsigned char>(in[i + 1])} << 8;
    out.push_back(kAlphabet[(x >> 18) & 63]);
    out.push_back(kAlphabet[(x >> 12) & 63]);
    out.push_back(rest == 2 ? kAlphabet[(x >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// Applies one of Sundial's own parameters. *own is false for any other key.
Status ApplyParam(std::string_view url, std::string_view key, const std::string& value,
                  TargetSpec* spec, bool* own) {
  *own = true;
  uint64_t n = 0;
  if (key == "include" || key == "exclude") {
    if (value.empty()) return Bad(url, key == "include" ? "empty include" : "empty exclude");
    (key == "include" ? spec->include : spec->exclude).push_back(value);
  } else if (key == "tag") {
    const size_t eq = value.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == value.size()) {
      return Bad(url, "tag must be KEY=VALUE, got \"" + value + "\"");
    }
    const std::string k = value.substr(0, eq);
    for (auto& kv : spec->add_tags) {
      if (kv.first == k) return Bad(url, "tag " + k + " given twice");
    }
    spec->add_tags.emplace_back(k, value.substr(eq + 1));
  } else if (key == "batch") {
    if (!ParseScaled(value, {{"", 1}}, &n) || n < 1 || n > 1000000) {
      return Bad(url, "batch must be 1..1000000 points, got \"" + value + "\"");
    }
    spec->batch_points = static_cast<uint32_t>(n);
  } else if (key == "timeout") {
    if (!ParseDurationMs(value, &n) || n < 1 || n > 3600000) {
      return Bad(url, "timeout must be 1ms..1h (e.g. 500ms, 10s), got \"" + value + "\"");
    }
    spec->timeout = std::chrono::milliseconds(static_cast<int64_t>(n));
  } else if (key == "max_pending") {
    if (!ParseByteCount(value, &n) || n < 1) {
      return Bad(url, "max_pending must be a byte count (e.g. 512MiB), got \"" + value + "\"");
    }
    spec->max_pending_bytes = n;
  } else if (key == "ack") {
    if (spec->protocol != Protocol::kTelnet) {
      return Bad(url, "ack= is for telnet targets (HTTP protocols are acknowledged by the reply)");
    }
    if (value == "tcp") {
      spec->ack = TelnetAck::kTcp;
    } else if (value == "version") {
      spec->ack = TelnetAck::kVersion;
    } else {
      return Bad(url, "ack must be tcp or version, got \"" + value + "\"");
    }
  } else if (key == "precision" && spec->protocol == Protocol::kInflux) {
    if (value != "ms") {
      return Bad(url, "precision must be ms (the relay sends millisecond timestamps), got \"" +
                          value + "\"");
    }
    *own = false;  // goes upstream where the user put it, so the id stays the same
  } else if ((key == "bearer" || key == "basic") && !spec->authorization.empty()) {
    return Bad(url, "credentials given twice (USER:PASSWORD@, bearer= or basic=)");
  } else if (key == "bearer") {
    if (value.empty()) return Bad(url, "empty bearer token");
    spec->authorization = "Bearer " + value;
  } else if (key == "basic") {
    if (value.find(':') == std::string::npos) return Bad(url, "basic must be USER:PASSWORD");
    spec->authorization = "Basic " + Base64(value);
  } else {
    *own = false;
  }
  return Status::OK();
}

Status ParseHostPort(std::string_view url, std::string_view hp, TargetSpec* spec) {
  std::string_view port;
  if (!hp.empty() && hp.front() == '[') {
    const size_t close = hp.find(']');
    if (close == std::string_view::npos) return Bad(url, "unclosed [ in the host");
    spec->host = std::string(hp.substr(1, close - 1));
    hp.remove_prefix(close + 1);
    if (hp.empty() || hp.front() != ':') return Bad(url, "a port is required (host:port)");
    port = hp.substr(1);
  } else {
    const size_t colon = hp.rfind(':');
    if (colon == std::string_view::npos) return Bad(url, "a port is required (host:port)");
    spec->host = std::string(hp.substr(0, colon));
    port = hp.substr(colon + 1);
  }
  uint64_t p = 0;
  if (spec->host.empty()) return Bad(url, "empty host");
  for (char c : spec->host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == '_' || c == ':' || c == '%';
    if (!ok) return Bad(url, "bad character in the host name");
  }
  if (!ParseScaled(port, {{"", 1}}, &p) || p < 1 || p > 65535) {
    return Bad(url, "port must be 1..65535");
  }
  spec->port = static_cast<uint16_t>(p);
  return Status::OK();
}

}  // namespace

const char* ProtocolName(Protocol p) {
  switch (p) {
    case Protocol::kTelnet: return "telnet";
    case Protocol::kHttpPut: return "http";
    case Protocol::kRemoteWrite: return "remote-write";
    case Protocol::kInflux: return "influx";
  }
  return "?";
}

std::string MaskTargetUrl(std::string_view url) {
  std::string out;
  const size_t sep = url.find("://");
  const size_t authority = sep == std::string_view::npos ? 0 : sep + 3;
  const size_t end = std::min(url.find_first_of("/?", authority), url.size());
  const size_t at = url.substr(0, end).rfind('@');
  if (at != std::string_view::npos && at >= authority) {  // user:password@
    const size_t colon = url.substr(0, at).find(':', authority);
    out = std::string(url.substr(0, colon == std::string_view::npos ? authority : colon + 1));
    out += std::string(kMasked) + std::string(url.substr(at, end - at));
  } else {
    out = std::string(url.substr(0, end));
  }
  std::string_view rest = url.substr(end);
  const size_t q = rest.find('?');
  out += std::string(rest.substr(0, q));
  if (q == std::string_view::npos) return out;
  std::string_view query = rest.substr(q + 1);
  out += '?';
  for (bool first = true; ; first = false) {
    const size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    const size_t eq = param.find('=');
    if (!first) out += '&';
    if (eq != std::string_view::npos && SecretParam(param.substr(0, eq))) {
      out += std::string(param.substr(0, eq + 1));
      const std::string_view value = param.substr(eq + 1);
      const size_t colon = value.find(':');  // basic=USER:PASSWORD keeps the user
      if (param.substr(0, eq) == "basic" && colon != std::string_view::npos) {
        out += std::string(value.substr(0, colon + 1));
      }
      out += kMasked;
    } else {
      out += std::string(param);
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return out;
}

Status ParseTarget(std::string_view url, TargetSpec* out) {
  TargetSpec spec;
  const size_t sep = url.find("://");
  if (sep == std::string_view::npos) return Bad(url, "expected scheme://host:port[/path]");
  const std::string_view scheme = url.substr(0, sep);
  if (scheme == "telnet") {
    spec.protocol = Protocol::kTelnet;
  } else if (scheme == "http") {
    spec.protocol = Protocol::kHttpPut;
  } else if (scheme == "remote-write") {
    spec.protocol = Protocol::kRemoteWrite;
  } else if (scheme == "influx") {
    spec.protocol = Protocol::kInflux;
  } else if (scheme == "https" || scheme == "remote-writes" || scheme == "influxs") {
    return Bad(url, "TLS is not supported (no TLS library is linked); use a local TLS proxy");
  } else {
    return Bad(url, "unknown scheme (telnet, http, remote-write or influx)");
  }
  std::string_view rest = url.substr(sep + 3);
  const size_t slash = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, slash);
  const size_t at = authority.rfind('@');
  if (at != std::string_view::npos) {  // user:password@host:port = basic auth
    std::string userinfo;
    if (!PercentDecode(authority.substr(0, at), &userinfo) ||
        userinfo.find(':') == std::string::npos) {
      return Bad(url, "credentials before @ must be USER:PASSWORD");
    }
    if (spec.protocol == Protocol::kTelnet) return Bad(url, "a telnet target takes no credentials");
    spec.authorization = "Basic " + Base64(userinfo);
    authority.remove_prefix(at + 1);
  }
  SUNDIAL_RETURN_IF_ERROR(ParseHostPort(url, authority, &spec));
  rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  const size_t q = rest.find('?');
  std::string path(rest.substr(0, q));
  std::string upstream_query;
  std::string shown_query;  // upstream_query with secret values masked
  bool has_precision = false;
  std::string_view query = q == std::string_view::npos ? std::string_view() : rest.substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.empty()) continue;
    const size_t eq = param.find('=');
    const std::string_view key = param.substr(0, eq);
    std::string value;
    if (!PercentDecode(eq == std::string_view::npos ? std::string_view() : param.substr(eq + 1),
                       &value)) {
      return Bad(url, "bad percent escape in parameter " + std::string(key));
    }
    bool own = false;
    SUNDIAL_RETURN_IF_ERROR(ApplyParam(url, key, value, &spec, &own));
    has_precision = has_precision || key == "precision";
    if (!own) {
      upstream_query += (upstream_query.empty() ? "" : "&") + std::string(param);
      shown_query += (shown_query.empty() ? "" : "&") +
                     (eq != std::string_view::npos && SecretParam(key)
                          ? std::string(key) + "=" + std::string(kMasked)
                          : std::string(param));
    }
  }
  if (spec.protocol == Protocol::kTelnet) {
    if (!(path.empty() || path == "/") || !upstream_query.empty()) {
      return Bad(url, "a telnet target takes no path or upstream parameters");
    }
    path.clear();
  } else {
    if (path.empty() || path == "/") {
      if (spec.protocol == Protocol::kRemoteWrite) return Bad(url, "remote-write needs a path");
      path = spec.protocol == Protocol::kHttpPut ? "/api/put" : "/write";
    }
    if (spec.protocol == Protocol::kInflux && !has_precision) {
      upstream_query += (upstream_query.empty() ? "" : "&") + std::string("precision=ms");
      shown_query += (shown_query.empty() ? "" : "&") + std::string("precision=ms");
    }
  }
  spec.path = path + (upstream_query.empty() ? "" : "?" + upstream_query);
  const bool v6 = spec.host.find(':') != std::string::npos;
  // The id derives from what is shown, so a new password keeps the position.
  spec.display = std::string(scheme) + "://" + (v6 ? "[" + spec.host + "]" : spec.host) + ":" +
                 std::to_string(spec.port) + path + (shown_query.empty() ? "" : "?" + shown_query);
  char id[16];
  std::snprintf(id, sizeof(id), "%08x", crc32c::Value(spec.display.data(), spec.display.size()));
  spec.id = std::string(ProtocolName(spec.protocol)) + "-" + id;
  *out = std::move(spec);
  return Status::OK();
}

Status ParseTargetList(std::string_view list, std::vector<TargetSpec>* out) {
  out->clear();
  while (!list.empty()) {
    const size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty()) continue;
    TargetSpec spec;
    SUNDIAL_RETURN_IF_ERROR(ParseTarget(item, &spec));
    for (const TargetSpec& other : *out) {
      if (other.id == spec.id) return Bad(item, "given twice");
    }
    out->push_back(std::move(spec));
  }
  return Status::OK();
}

bool GlobMatch(std::string_view pattern, std::string_view s) {
  // Iterative matching with one backtrack point: linear-ish, no recursion.
  size_t p = 0, i = 0, star = std::string_view::npos, mark = 0;
  while (i < s.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = i;
    } else if (p < pattern.size() && pattern[p] == s[i]) {
      ++p;
      ++i;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      i = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

bool MetricSelected(const TargetSpec& spec, std::string_view metric) {
  bool in = spec.include.empty();
  for (const std::string& p : spec.include) in = in || GlobMatch(p, metric);
  if (!in) return false;
  for (const std::string& p : spec.exclude) {
    if (GlobMatch(p, metric)) return false;
  }
  return true;
}

}  // namespace sundial::relay
