// libFuzzer target: the /api/query/exp expression parser and evaluator.
// Any text parses or fails with a Status; a parsed program evaluates
// without crashing for any variable values.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "sundial/query/exp_expr.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sundial::query::ExprProgram p;
  if (!sundial::query::ExprProgram::Parse(text, &p).ok()) return 0;
  static constexpr double kValues[] = {0, 1, -2.5, 1e300,
                                       std::numeric_limits<double>::quiet_NaN(),
                                       std::numeric_limits<double>::infinity()};
  std::vector<double> vars(p.variables().size());
  for (size_t round = 0; round < 6; ++round) {
    for (size_t i = 0; i < vars.size(); ++i) vars[i] = kValues[(round + i) % 6];
    (void)p.Evaluate(vars.data());
  }
  return 0;
}
