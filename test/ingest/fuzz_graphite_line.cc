// libFuzzer target: the Graphite plaintext line parser. Each input line is
// parsed and its tags split; accepted points must satisfy the documented
// rules (non-empty path without blanks, finite value, distinct tag keys).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "sundial/ingest/graphite_parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sundial::ingest;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<sundial::storage::TagRef> tags;
  while (!input.empty()) {
    const size_t nl = input.find('\n');
    std::string_view line = input.substr(0, nl);
    input = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
    GraphitePoint p;
    if (!ParseGraphiteLine(line, 1000, &p).ok()) continue;
    if (p.path.empty() || p.path.find_first_of(" \t;") != std::string_view::npos) {
      __builtin_trap();
    }
    if (!std::isfinite(p.value) || p.t_ms < 0) __builtin_trap();
    if (!ParseGraphiteTags(p.tag_text, &tags).ok()) continue;
    for (size_t i = 0; i < tags.size(); ++i) {
      if (tags[i].key.empty() || tags[i].value.empty()) __builtin_trap();
      for (size_t j = 0; j < i; ++j) {
        if (tags[i].key == tags[j].key) __builtin_trap();
      }
    }
  }
  return 0;
}
