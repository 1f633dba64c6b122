#include "disk_writes.h"

#include <cstdio>
#include <string>

namespace sundial::server {

bool ParseProcIoWriteBytes(std::string_view text, uint64_t* out) {
  constexpr std::string_view kKey = "write_bytes:";
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty() || line.size() > 20) return false;
    uint64_t v = 0;
    for (char c : line) {
      if (c < '0' || c > '9') return false;
      const uint64_t digit = static_cast<uint64_t>(c - '0');
      if (v > (UINT64_MAX - digit) / 10) return false;
      v = v * 10 + digit;
    }
    *out = v;
    return true;
  }
  return false;
}

bool ProcessWriteBytes(uint64_t* out) {
  std::FILE* f = std::fopen("/proc/self/io", "re");
  if (f == nullptr) return false;
  char buf[1024];
  const size_t n = std::fread(buf, 1, sizeof(buf), f);
  std::fclose(f);
  return ParseProcIoWriteBytes(std::string_view(buf, n), out);
}

}  // namespace sundial::server
