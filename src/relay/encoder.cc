#include "encoder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_map>

#include "sundial/common/coding.h"
#include "sundial/common/json_escape.h"

namespace sundial::relay {
namespace {

void AppendInt(int64_t x, std::string* out) {
  char buf[24];
  const auto r = std::to_chars(buf, buf + sizeof(buf), x);
  out->append(buf, static_cast<size_t>(r.ptr - buf));
}

void AppendTelnet(const RelayPoint& p, std::string* out) {
  out->append("put ");
  out->append(p.names->metric);
  out->push_back(' ');
  if (p.t % 1000 == 0) {
    AppendInt(p.t / 1000, out);
  } else {
    AppendInt(p.t, out);
  }
  out->push_back(' ');
  AppendValue(p.v, out);
  for (const auto& [k, v] : p.names->tags) {
    out->push_back(' ');
    out->append(k);
    out->push_back('=');
    out->append(v);
  }
  out->push_back('\n');
}

void AppendPutJson(const RelayPoint& p, std::string* out) {
  out->append("{\"metric\":");
  AppendJsonString(p.names->metric, out);
  out->append(",\"timestamp\":");
  AppendInt(p.t, out);
  out->append(",\"value\":");
  const bool finite = p.v.is_int() || std::isfinite(p.v.float_value());
  if (!finite) out->push_back('"');
  AppendValue(p.v, out);
  if (!finite) out->push_back('"');
  out->append(",\"tags\":{");
  bool first = true;
  for (const auto& [k, v] : p.names->tags) {
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(k, out);
    out->push_back(':');
    AppendJsonString(v, out);
  }
  out->append("}}");
}

// Line protocol escapes: measurement (comma, space), tag key/value (comma,
// equals, space).
void AppendEscaped(std::string_view s, bool tag, std::string* out) {
  for (char c : s) {
    if (c == ',' || c == ' ' || (tag && c == '=') || c == '\\') out->push_back('\\');
    out->push_back(c);
  }
}

bool AppendInflux(const RelayPoint& p, std::string* out) {
  if (!p.v.is_int() && !std::isfinite(p.v.float_value())) return false;
  AppendEscaped(p.names->metric, false, out);
  for (const auto& [k, v] : p.names->tags) {
    out->push_back(',');
    AppendEscaped(k, true, out);
    out->push_back('=');
    AppendEscaped(v, true, out);
  }
  out->append(" value=");
  AppendValue(p.v, out);
  if (p.v.is_int()) out->push_back('i');
  out->push_back(' ');
  AppendInt(p.t, out);
  out->push_back('\n');
  return true;
}

// Protobuf wire format helpers.
void PutTag(uint32_t field, uint32_t wire, std::string* out) {
  PutVarint32(out, (field << 3) | wire);
}
void PutBytesField(uint32_t field, std::string_view s, std::string* out) {
  PutTag(field, 2, out);
  PutVarint64(out, s.size());
  out->append(s.data(), s.size());
}

void AppendLabel(std::string_view name, std::string_view value, std::string* out) {
  std::string label;
  PutBytesField(1, name, &label);
  PutBytesField(2, value, &label);
  PutBytesField(1, label, out);
}

// The Label fields of a series, sorted by name (__name__ = the metric).
const std::string& LabelsWire(const SeriesNames& names) {
  if (!names.labels_wire.empty()) return names.labels_wire;
  std::vector<std::pair<std::string, std::string>> labels;
  labels.emplace_back("__name__", PrometheusName(names.metric, true));
  for (const auto& [k, v] : names.tags) labels.emplace_back(PrometheusName(k, false), v);
  std::sort(labels.begin(), labels.end());
  for (const auto& [k, v] : labels) AppendLabel(k, v, &names.labels_wire);
  return names.labels_wire;
}

size_t VarintLength(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// One Sample field: value (field 1, fixed64) and timestamp (field 2, varint).
void AppendSample(const RelayPoint& p, std::string* out) {
  const double v = p.v.is_int() ? static_cast<double>(p.v.int_value()) : p.v.float_value();
  const uint64_t t = static_cast<uint64_t>(p.t);
  PutTag(2, 2, out);
  PutVarint32(out, static_cast<uint32_t>(1 + 8 + 1 + VarintLength(t)));
  PutTag(1, 1, out);
  char bits[8];
  EncodeFixed64(bits, DoubleToBits(v));
  out->append(bits, 8);
  PutTag(2, 0, out);
  PutVarint64(out, t);
}

void AppendRemoteWrite(const RelayPoint* points, size_t n, std::string* out) {
  // Group by series, in order of first appearance; samples keep their order.
  std::unordered_map<const SeriesNames*, size_t> index;
  std::vector<std::pair<const SeriesNames*, std::vector<size_t>>> groups;
  for (size_t i = 0; i < n; ++i) {
    auto [it, fresh] = index.emplace(points[i].names, groups.size());
    if (fresh) groups.push_back({points[i].names, {}});
    groups[it->second].second.push_back(i);
  }
  std::string ts;
  for (const auto& [names, members] : groups) {
    ts.assign(LabelsWire(*names));
    for (size_t i : members) AppendSample(points[i], &ts);
    PutBytesField(1, ts, out);
  }
}

}  // namespace

void AppendValue(const Value& v, std::string* out) {
  if (v.is_int()) {
    AppendInt(v.int_value(), out);
    return;
  }
  const double d = v.float_value();
  if (std::isnan(d)) {
    out->append("NaN");
  } else if (std::isinf(d)) {
    out->append(d > 0 ? "Inf" : "-Inf");
  } else {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), d);
    out->append(buf, static_cast<size_t>(r.ptr - buf));
  }
}

std::string PrometheusName(std::string_view name, bool metric) {
  std::string out(name);
  for (size_t i = 0; i < out.size(); ++i) {
    const char c = out[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                    (metric && c == ':') || (i > 0 && c >= '0' && c <= '9');
    if (!ok) out[i] = '_';
  }
  return out;
}

size_t EncodeBatch(Protocol protocol, const RelayPoint* points, size_t n, std::string* out) {
  out->clear();
  size_t left_out = 0;
  switch (protocol) {
    case Protocol::kTelnet:
      for (size_t i = 0; i < n; ++i) AppendTelnet(points[i], out);
      break;
    case Protocol::kHttpPut:
      out->push_back('[');
      for (size_t i = 0; i < n; ++i) {
        if (i > 0) out->push_back(',');
        AppendPutJson(points[i], out);
      }
      out->push_back(']');
      break;
    case Protocol::kRemoteWrite:
      AppendRemoteWrite(points, n, out);
      break;
    case Protocol::kInflux:
      for (size_t i = 0; i < n; ++i) left_out += AppendInflux(points[i], out) ? 0 : 1;
      break;
  }
  return left_out;
}

}  // namespace sundial::relay
