// IngestOptions: the knobs of the write path, fixed after server start.
//
// Defaults follow OpenTSDB 2.4 (opentsdb-compat.md §2), except that metrics
// are auto-created by default (tcollector deployments always enable it).
#pragma once

#include <cstddef>
#include <string>

namespace sundial::ingest {

struct IngestOptions {
  // Most tags a point may carry (OpenTSDB tsd.storage.max_tags).
  size_t max_tags = 8;
  // Extra characters allowed in metric names, tag keys and tag values, on top
  // of a-z A-Z 0-9 - _ . / and Unicode letters (tsd.core.tag.allow_specialchars).
  std::string allow_specialchars;
  // When false, a put of a metric never seen before is rejected with
  // "unknown metric" (OpenTSDB tsd.core.auto_create_metrics=false).
  bool auto_create_metrics = true;
  // Points a connection buffers before it must hand them to storage.
  size_t max_batch_points = 65536;
  // Series a connection remembers in its resolve cache before it starts over.
  size_t series_cache_entries = 1u << 16;
  // Line protocol: a field becomes the metric <measurement><sep><field>.
  std::string influx_separator = ".";
};

}  // namespace sundial::ingest
