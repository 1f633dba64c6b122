// GexpNode: a parsed /api/query/gexp expression, OpenTSDB 2.3+'s Graphite-
// style function calls over m-style metric queries:
//
//   scale(sum:if.bytes_in{host=*},1024)
//   alias(divideSeries(sum:a{host=*},,sum:b{host=*}),,'@host ratio')
//   movingAverage(timeShift(avg:sys.cpu{dc=lga},'1day'),'5min')
//
// Grammar (OpenTSDB's Expressions/ExpressionReader, made strict):
//   expr  := ws name ws "(" [arg (sep arg)*] ")" ws
//   sep   := ",," | ","     (OpenTSDB separates parameters with ",,";
//                            a single "," outside braces works too)
//   arg   := expr           (a token with "(" after its first byte)
//          | metric query   (a token with ":"; parsed later as an m= value)
//          | parameter      (anything else: 5, 1.5, '1min', '@host x')
// A token ends at a separator or the ")" that closes its call, both
// outside parentheses and braces; surrounding whitespace is dropped.
// Function names are case-sensitive, as in OpenTSDB.
//
// Limits: at most kMaxGexpLength bytes, kMaxGexpDepth nested calls and
// kMaxGexpArgs arguments per call, which bound the recursion and the work.
//
// Errors are InvalidArgument (HTTP 400) and name the byte position:
//   "Invalid expression [<text>]: <what> at position <n>".
//
// Thread-safety: Parse is a pure function; a parsed tree is plain data.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::query {

inline constexpr size_t kMaxGexpLength = 4096;
inline constexpr int kMaxGexpDepth = 16;
inline constexpr size_t kMaxGexpArgs = 64;

// The functions OpenTSDB 2.4's ExpressionFactory registers.
enum class GexpFunction {
  kAbsolute,
  kAlias,
  kDiffSeries,
  kDivideSeries,
  kHighestCurrent,
  kHighestMax,
  kMovingAverage,
  kMultiplySeries,
  kScale,
  kSumSeries,
  kTimeShift,
};

// Looks name up (case-sensitive). False if there is no such function.
bool FindGexpFunction(std::string_view name, GexpFunction* out);

struct GexpNode {
  enum class Kind { kCall, kMetric };
  Kind kind = Kind::kCall;
  GexpFunction function = GexpFunction::kAbsolute;  // kCall
  std::string name;    // kCall: the function name; kMetric: the m= text
  size_t pos = 0;      // byte offset of the name or the metric query
  // kCall: the series arguments (calls and metric queries), in order.
  std::vector<GexpNode> inputs;
  // kCall: the other arguments, in order, as written (trimmed).
  std::vector<std::string> params;
};

// Parses text into *out (a kCall node).
Status ParseGexp(std::string_view text, GexpNode* out);

}  // namespace sundial::query
