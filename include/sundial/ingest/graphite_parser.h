// The Graphite plaintext protocol (carbon's line receiver):
//
//   <path>[;<tag>=<value>...] <value> [<timestamp>]\n
//
// Fields are separated by runs of spaces or tabs; a line may end in "\r\n".
// The path becomes the metric and the tags (Graphite's tag syntax,
// graphite.readthedocs.io/en/latest/tags.html) become tags; a path without
// tags is a series without tags. The value is a decimal float (as Python's
// float() reads it; NaN and infinities are refused, as Sundial refuses them
// everywhere). The timestamp is in seconds, possibly fractional; -1 or a
// missing timestamp means "now", as in carbon.
//
// Tag rules, as Graphite validates them: a tag name is non-empty and has
// none of ";!^="; a tag value is non-empty, has no ";" and does not start
// with "~". A repeated tag name keeps its last value (carbon builds a
// dict). The characters of path, names and values are checked afterwards by
// the write path (NamePolicy::kPlainText: no ASCII control characters).
//
// Why two steps (line, then tags): a connection resolves a series from the
// raw bytes of path and tag text through its cache, so the tags need to be
// split and checked only when a series is seen for the first time.
//
// Thread-safety: pure functions.
#pragma once

#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/common/types.h"
#include "sundial/storage/storage.h"

namespace sundial::ingest {

struct GraphitePoint {
  std::string_view path;      // the metric; never empty after a successful parse
  std::string_view tag_text;  // ";k=v;k2=v2" as sent; empty without tags
  double value = 0;
  Timestamp t_ms = 0;
};

// Parses one line, given without its line end ("\n" or "\r\n" removed).
// now_ms is used for a missing or -1 timestamp. The views point into line.
// InvalidArgument with a short reason on a bad line ("expected 2 or 3
// fields", "bad value", "bad timestamp", "empty path", ...). Tags are not
// checked here: see ParseGraphiteTags.
Status ParseGraphiteLine(std::string_view line, Timestamp now_ms, GraphitePoint* out);

// Splits and checks a tag text (GraphitePoint::tag_text) into *tags, whose
// views point into tag_text; repeated names keep the last value, so keys
// come out distinct. InvalidArgument naming the bad tag otherwise.
Status ParseGraphiteTags(std::string_view tag_text, std::vector<storage::TagRef>* tags);

}  // namespace sundial::ingest
