// Encoders: a batch of points, with names, as one request body (or one
// run of telnet lines) in each upstream protocol.
//
//   telnet        put <metric> <t> <value> k=v ...\n   (t in s when whole, else ms)
//   http          [{"metric":..,"timestamp":t,"value":v,"tags":{..}}, ...]  (t in ms)
//   remote-write  prometheus.WriteRequest (protobuf), snappy-compressed by
//                 the caller: TimeSeries{labels=1, samples=2}, Label{name=1,
//                 value=2}, Sample{value=1 double, timestamp=2 int64 ms};
//                 labels sorted by name, __name__ = the metric; names
//                 outside [a-zA-Z0-9_:] (labels: [a-zA-Z0-9_]) get '_'
//   influx        <metric>,k=v value=<v>[i] <t ms>\n  (precision=ms)
// Non-finite values are sent as NaN/Inf where the protocol has them (telnet,
// remote-write, http as strings) and left out of influx batches (counted by
// the caller as rejected).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sundial/common/types.h"
#include "sundial/relay/target_spec.h"

namespace sundial::relay {

// A series as the target sees it: include/exclude applied, extra tags
// merged, tags sorted by key.
struct SeriesNames {
  std::string metric;
  std::vector<std::pair<std::string, std::string>> tags;
  // remote-write: the encoded Label fields, built on first use (the
  // encoder's cache; one thread per target uses it).
  mutable std::string labels_wire;
};

// One point to send; names borrowed from the relay's cache.
struct RelayPoint {
  const SeriesNames* names;
  Timestamp t;
  Value v;
};

// Appends the encoding of points [0, n) to *out (cleared first). Returns
// how many points were left out (only influx leaves out non-finite values).
size_t EncodeBatch(Protocol protocol, const RelayPoint* points, size_t n, std::string* out);

// The value as text: integers in decimal, floats in the shortest form that
// reads back identically.
void AppendValue(const Value& v, std::string* out);

// The Prometheus form of a metric or label name.
std::string PrometheusName(std::string_view name, bool metric);

}  // namespace sundial::relay
