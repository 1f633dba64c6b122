#include "sundial/query/time_zone.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace sundial::query {
namespace {

bool ValidZoneName(std::string_view n) {
  if (n.empty() || n.size() > 128 || n.front() == '/' || n.find("..") != std::string_view::npos) {
    return false;
  }
  for (char c : n) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '/' || c == '_' || c == '-' || c == '+';
    if (!ok) return false;
  }
  return true;
}

uint32_t Be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
int64_t Be64(const uint8_t* p) {
  return static_cast<int64_t>((uint64_t{Be32(p)} << 32) | Be32(p + 4));
}

bool ReadFile(const std::string& path, std::string* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) {
    out->append(buf, n);
    if (out->size() > (1u << 20)) break;  // no zone file is this large
  }
  std::fclose(f);
  return true;
}

// TZif header counts (RFC 8536 §3.1).
struct Counts {
  uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
};

bool ParseHeader(const uint8_t* p, size_t n, Counts* c) {
  if (n < 44 || p[0] != 'T' || p[1] != 'Z' || p[2] != 'i' || p[3] != 'f') return false;
  c->isutcnt = Be32(p + 20);
  c->isstdcnt = Be32(p + 24);
  c->leapcnt = Be32(p + 28);
  c->timecnt = Be32(p + 32);
  c->typecnt = Be32(p + 36);
  c->charcnt = Be32(p + 40);
  return c->typecnt > 0 && c->typecnt < 256 && c->timecnt < 100000;
}

uint64_t BlockSize(const Counts& c, int time_size) {
  return uint64_t{c.timecnt} * time_size + c.timecnt + uint64_t{c.typecnt} * 6 + c.charcnt +
         uint64_t{c.leapcnt} * (time_size + 4) + c.isstdcnt + c.isutcnt;
}

}  // namespace

Status TimeZone::Load(std::string_view name, TimeZone* out, std::string_view zoneinfo_dir) {
  const Status bad = Status::InvalidArgument("Invalid timezone name: " + std::string(name));
  if (name == "UTC" || name == "GMT" || name == "Z" || name == "Etc/UTC") {
    *out = TimeZone();
    out->name_ = std::string(name);
    return Status::OK();
  }
  if (!ValidZoneName(name)) return bad;
  std::string data;
  if (!ReadFile(std::string(zoneinfo_dir) + "/" + std::string(name), &data)) return bad;
  const auto* p = reinterpret_cast<const uint8_t*>(data.data());
  size_t n = data.size();
  Counts c{};
  if (!ParseHeader(p, n, &c)) return bad;
  int time_size = 4;
  if (p[4] >= '2') {  // skip the v1 block, use the 64-bit one
    const uint64_t skip = 44 + BlockSize(c, 4);
    if (skip >= n || !ParseHeader(p + skip, n - skip, &c)) return bad;
    p += skip;
    n -= skip;
    time_size = 8;
  }
  if (44 + BlockSize(c, time_size) > n) return bad;
  const uint8_t* q = p + 44;
  TimeZone tz;
  tz.name_ = std::string(name);
  tz.transitions_.resize(c.timecnt);
  for (uint32_t i = 0; i < c.timecnt; ++i, q += time_size) {
    tz.transitions_[i] = time_size == 8 ? Be64(q) : static_cast<int32_t>(Be32(q));
  }
  tz.type_index_.assign(q, q + c.timecnt);
  q += c.timecnt;
  tz.offsets_.resize(c.typecnt);
  for (uint32_t i = 0; i < c.typecnt; ++i, q += 6) {
    tz.offsets_[i] = static_cast<int32_t>(Be32(q));
  }
  for (uint8_t idx : tz.type_index_) {
    if (idx >= c.typecnt) return bad;
  }
  // RFC 8536: times before the first transition use type 0.
  tz.base_offset_ = tz.offsets_[0];
  *out = std::move(tz);
  return Status::OK();
}

int32_t TimeZone::OffsetAtUtc(int64_t utc_ms) const {
  if (transitions_.empty()) return offsets_.empty() ? base_offset_ : offsets_[0];
  // floor division to seconds
  const int64_t s = utc_ms >= 0 ? utc_ms / 1000 : -((-utc_ms + 999) / 1000);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), s);
  if (it == transitions_.begin()) return base_offset_;
  return offsets_[type_index_[static_cast<size_t>(it - transitions_.begin() - 1)]];
}

int64_t TimeZone::LocalToUtc(int64_t local_ms) const {
  const int64_t guess = local_ms - int64_t{OffsetAtUtc(local_ms)} * 1000;
  const int32_t off1 = OffsetAtUtc(guess);
  const int64_t utc = local_ms - int64_t{off1} * 1000;
  const int32_t off2 = OffsetAtUtc(utc);
  if (off2 == off1) return utc;
  // In a gap or overlap: use the smaller (standard-time) offset, which moves
  // a wall time inside a spring-forward gap forward, as Java's lenient
  // calendar does.
  return local_ms - int64_t{std::min(off1, off2)} * 1000;
}

}  // namespace sundial::query
