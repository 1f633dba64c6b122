#include "version.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "build_info.h"

namespace sundial::server {

namespace {

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

}  // namespace

std::string TelnetVersionReply() {
  std::string out = "net.opentsdb.tools ";
  out += kOpenTsdbApiVersion;
  out += " built at revision ";
  out += kGitRevision;
  out += " (MINT)\nBuilt on ";
  out += kBuildDate;
  out += " by sundial@";
  out += HostName();
  out += ":sundial-";
  out += kSundialVersion;
  out += "\n";
  return out;
}

std::string VersionJson() {
  nlohmann::json j = {
      {"version", kOpenTsdbApiVersion},
      {"short_revision", kGitRevision},
      {"full_revision", kGitFullRevision},
      {"timestamp", kBuildTimestamp},
      {"repo_status", "MINT"},
      {"user", "sundial"},
      {"host", HostName()},
      {"repo", "sundial"},
      {"branch", std::string("sundial-") + kSundialVersion},
      {"sundial_version", kSundialVersion},
  };
  return j.dump();
}

}  // namespace sundial::server
