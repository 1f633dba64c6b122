// ExprProgram: the arithmetic of one /api/query/exp expression ("a + b",
// "(a - b) / a * 100", "a > 10 && b < 5 ? a : b"), parsed once and then
// evaluated at every timestamp of every joined series.
//
// Why our own parser: OpenTSDB evaluates these strings with Apache JEXL
// 2.1. We accept the part of JEXL's expression language that means
// something on numbers, with JEXL's value rules, and nothing else:
//   literals   integers (decimal, 0x hex, 0-prefixed octal, l/L/h/H suffix),
//              reals "1.5", "2.5e3" (JEXL reads them as Java floats, so
//              0.1 is 0.1 but 0.123456789 is 0.12345679; suffix d/D keeps
//              double precision), true, false
//   variables  identifiers [A-Za-z_$][A-Za-z0-9_$]* (metric or expression ids)
//   operators  by increasing precedence:
//              ?: (ternary, and "x ?: y")  || or  && and
//              == != eq ne   < <= > >= lt le gt ge   + -   * / % div mod
//              unary - ! not    parentheses
// Value rules (JexlArithmetic, lenient mode as OpenTSDB uses it):
//  * integer op integer stays an integer (Java BigInteger; here int64, and
//    a result that would overflow becomes a double); anything with a real
//    operand is double arithmetic. Variables are always doubles.
//  * x / 0 and x % 0 give 0 (not Infinity or NaN), for integers and doubles.
//    Integer % takes the non-negative modulus, and a negative divisor gives 0.
//  * comparisons order NaN below every number and equal to NaN.
//  * a number is true when it is neither 0 nor NaN; booleans are 1 and 0 in
//    arithmetic; the result of the whole expression is a double (true = 1).
// Not supported (a 400 with the position): strings, null, assignments,
// statements, method calls, dotted names, bitwise and regexp operators.
//
// Limits: at most kMaxExprLength bytes and kMaxExprDepth levels of nesting
// (of the syntax tree, so a chain of 300 "+" is too deep as well), which
// bounds the recursion of both parsing and evaluation.
//
// Thread-safety: Parse is a pure function; a parsed program is immutable
// and Evaluate may be called from many threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"

namespace sundial::query {

inline constexpr size_t kMaxExprLength = 4096;
inline constexpr int kMaxExprDepth = 128;

class ExprProgram {
 public:
  // One node of the syntax tree (exposed for the evaluator's tests only).
  enum class Op : uint8_t {
    kInt, kReal, kBool, kVar,
    kNeg, kNot,
    kAdd, kSub, kMul, kDiv, kMod,
    kEq, kNe, kLt, kLe, kGt, kGe,
    kAnd, kOr, kTernary, kElvis,
  };
  struct Node {
    Op op = Op::kInt;
    int64_t i = 0;     // kInt value; kBool 0/1; kVar index into variables()
    double d = 0;      // kReal value
    int32_t a = -1, b = -1, c = -1;  // children (indices into nodes)
  };

  // Parses text. Errors are InvalidArgument:
  //   "Invalid expression [<text>]: <what> at position <n>" (0-based byte).
  static Status Parse(std::string_view text, ExprProgram* out);

  // The distinct variable names, in order of first appearance.
  const std::vector<std::string>& variables() const { return variables_; }

  // Evaluates with vars[i] as the value of variables()[i].
  // REQUIRES: vars has variables().size() entries; the program was parsed.
  double Evaluate(const double* vars) const;

  const std::string& text() const { return text_; }

 private:
  friend class ExprParser;

  std::string text_;
  std::vector<Node> nodes_;
  int32_t root_ = -1;
  std::vector<std::string> variables_;
};

}  // namespace sundial::query
