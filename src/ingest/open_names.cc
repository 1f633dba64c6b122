#include "sundial/ingest/open_names.h"

namespace sundial::ingest {

IngestOptions WithOpenNames(const IngestOptions& options) {
  IngestOptions open = options;
  for (char c = 0x20; c < 0x7f; ++c) open.allow_specialchars.push_back(c);
  return open;
}

}  // namespace sundial::ingest
