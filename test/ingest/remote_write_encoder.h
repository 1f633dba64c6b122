// A minimal protobuf writer that builds remote_write WriteRequests for the
// ingest tests (the production code only decodes them).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <snappy.h>

namespace sundial::ingest::testing {

inline void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}
inline void PutKey(uint32_t field, uint32_t type, std::string* out) {
  PutVarint(field << 3 | type, out);
}
inline void PutBytes(uint32_t field, std::string_view b, std::string* out) {
  PutKey(field, 2, out);
  PutVarint(b.size(), out);
  out->append(b);
}
inline std::string Label(std::string_view name, std::string_view value) {
  std::string m;
  PutBytes(1, name, &m);
  PutBytes(2, value, &m);
  return m;
}
inline std::string Sample(double v, int64_t ts) {
  std::string m;
  PutKey(1, 1, &m);
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  for (int i = 0; i < 8; ++i) m.push_back(static_cast<char>(bits >> (8 * i)));
  PutKey(2, 0, &m);
  PutVarint(static_cast<uint64_t>(ts), &m);
  return m;
}
using Labels = std::vector<std::pair<std::string, std::string>>;
using Samples = std::vector<std::pair<double, int64_t>>;
// One encoded TimeSeries.
inline std::string Series(const Labels& labels, const Samples& samples) {
  std::string ts;
  for (const auto& [k, v] : labels) PutBytes(1, Label(k, v), &ts);
  for (const auto& [v, t] : samples) PutBytes(2, Sample(v, t), &ts);
  return ts;
}
// A WriteRequest of encoded series, snappy-compressed.
inline std::string Body(const std::vector<std::string>& series) {
  std::string req, out;
  for (const std::string& s : series) PutBytes(1, s, &req);
  snappy::Compress(req.data(), req.size(), &out);
  return out;
}

}  // namespace sundial::ingest::testing
