// The name rule of the protocols whose names are not OpenTSDB's
// (Prometheus remote_write, Graphite): OpenTSDB's characters (a-z A-Z 0-9
// - _ . /, Unicode letters, tsd.core.tag.allow_specialchars) plus every
// printable ASCII character, space included. So label values such as
// "127.0.0.1:9100" or "GET /api" are kept as they are; control characters
// and non-letter symbols outside ASCII are still refused.
//
// Why a wider rule and not OpenTSDB's: a Prometheus server adds
// instance="<host>:<port>" to every series it scrapes, and Graphite allows
// any ASCII in tags; refusing them would refuse nearly all of their data.
#pragma once

#include "sundial/ingest/ingest_options.h"

namespace sundial::ingest {

// options with allow_specialchars widened as above; build the protocol's
// PointRules from it.
IngestOptions WithOpenNames(const IngestOptions& options);

}  // namespace sundial::ingest
