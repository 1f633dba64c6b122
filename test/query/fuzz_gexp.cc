// libFuzzer target: the /api/query/gexp expression parser. Any text parses
// or fails with a Status, and a parsed tree keeps the documented limits.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sundial/query/gexp_parser.h"

namespace {

int Depth(const sundial::query::GexpNode& n) {
  int d = 0;
  for (const auto& in : n.inputs) {
    if (in.kind == sundial::query::GexpNode::Kind::kCall) d = std::max(d, Depth(in));
  }
  if (n.inputs.size() + n.params.size() > sundial::query::kMaxGexpArgs) std::abort();
  return d + 1;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sundial::query::GexpNode n;
  if (!sundial::query::ParseGexp(text, &n).ok()) return 0;
  if (Depth(n) > sundial::query::kMaxGexpDepth) std::abort();
  return 0;
}
