// TSUIDs and UIDs as OpenTSDB prints them (opentsdb-compat.md): UidHex,
// TsuidOf and the "No such name" error, declared in query_engine.h.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sundial/query/query_engine.h"
#include "sundial/query/query_spec.h"

namespace sundial::query {

namespace {

// Writes uid as 3 bytes of hex, or 4 when it needs them; returns the end.
char* PutUidHex(uint32_t uid, char* p) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  const int bytes = (uid >> 24) != 0 ? 4 : 3;
  for (int b = bytes - 1; b >= 0; --b) {
    const uint32_t byte = (uid >> (8 * b)) & 0xFF;
    *p++ = kHex[byte >> 4];
    *p++ = kHex[byte & 15];
  }
  return p;
}

std::string TsuidOfUids(uint32_t metric_uid, std::vector<std::pair<uint32_t, uint32_t>> pairs) {
  std::sort(pairs.begin(), pairs.end());
  std::string out(8 + pairs.size() * 16, '\0');
  char* p = PutUidHex(metric_uid, &out[0]);
  for (const auto& t : pairs) p = PutUidHex(t.second, PutUidHex(t.first, p));
  out.resize(static_cast<size_t>(p - out.data()));
  return out;
}

}  // namespace

std::string UidHex(uint32_t uid) {
  char buf[8];
  return std::string(buf, static_cast<size_t>(PutUidHex(uid, buf) - buf));
}

Status NoSuchName(std::string_view kind, std::string_view name) {
  const std::string msg =
      "No such name for '" + std::string(kind) + "': '" + std::string(name) + "'";
  return Status::InvalidArgument(msg + kDetailsSeparator + msg);
}

std::string TsuidOf(const storage::SeriesKey& key) {
  return TsuidOfUids(key.metric_uid, key.tag_uids);
}

std::string TsuidOf(const storage::SeriesKeyRef& key) {
  return TsuidOfUids(key.metric_uid, key.tag_uids);
}

}  // namespace sundial::query
