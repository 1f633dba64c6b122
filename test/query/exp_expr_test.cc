#include "sundial/query/exp_expr.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace sundial::query {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Parses text and evaluates it with the variables named a, b, c bound to
// the given values (in any order of appearance).
double Eval(const std::string& text, double a = 0, double b = 0, double c = 0) {
  ExprProgram p;
  const Status s = ExprProgram::Parse(text, &p);
  EXPECT_TRUE(s.ok()) << text << ": " << s.ToString();
  if (!s.ok()) return -12345;
  std::vector<double> vars;
  for (const std::string& v : p.variables()) {
    vars.push_back(v == "a" ? a : v == "b" ? b : v == "c" ? c : kNaN);
  }
  return p.Evaluate(vars.data());
}

std::string ParseError(const std::string& text) {
  ExprProgram p;
  const Status s = ExprProgram::Parse(text, &p);
  return s.ok() ? "OK" : s.message();
}

TEST(ExprProgram, ArithmeticAndPrecedence) {
  EXPECT_EQ(Eval("a + b", 1, 2), 3);
  EXPECT_EQ(Eval("a + b * 2", 1, 3), 7);
  EXPECT_EQ(Eval("(a + b) * 2", 1, 3), 8);
  EXPECT_EQ(Eval("a - b - c", 10, 3, 2), 5);  // left associative
  EXPECT_EQ(Eval("a / b / c", 24, 3, 2), 4);
  EXPECT_EQ(Eval("-(a - b)", 1, 3), 2);
  EXPECT_EQ(Eval("- -a", 4), 4);
  EXPECT_EQ(Eval("a * -1", 4), -4);
  EXPECT_EQ(Eval("a % b", 7, 4), 3);
  EXPECT_EQ(Eval("a mod b + a div b", 7, 2), 1 + 3.5);
  EXPECT_DOUBLE_EQ(Eval("a / b", 1, 11), 1.0 / 11);  // OpenTSDB: 0.0909 for 1/11
}

// JEXL in lenient mode answers 0 for a division or modulus by zero
// (OpenTSDB's TestExpressionIterator.aDivideByZeroWithTwoSeries: "a / 0"
// gives 0 at every point).
TEST(ExprProgram, DivisionByZeroIsZero) {
  EXPECT_EQ(Eval("a / 0", 5), 0);
  EXPECT_EQ(Eval("a / b", 5, 0), 0);
  EXPECT_EQ(Eval("a / b", 0, 0), 0);
  EXPECT_EQ(Eval("a % b", 5, 0), 0);
  EXPECT_EQ(Eval("a + 1 / 0", 5), 5);
  EXPECT_TRUE(std::isnan(Eval("a / b", kNaN, 2)));
  EXPECT_EQ(Eval("a / b", kNaN, 0), 0);  // the divisor decides
  EXPECT_TRUE(std::isnan(Eval("a + b", kNaN, 1)));
}

// Integer literals keep integer arithmetic among themselves (Java
// BigInteger), variables are doubles.
TEST(ExprProgram, IntegerLiterals) {
  EXPECT_EQ(Eval("a + 7 / 2"), 3);
  EXPECT_EQ(Eval("a + 7.0 / 2"), 3.5);
  EXPECT_EQ(Eval("a + -7 % 3"), 2);  // BigInteger.mod is non-negative
  EXPECT_EQ(Eval("a + 7 % -2"), 0);  // a negative modulus throws: 0
  EXPECT_EQ(Eval("a + 010"), 8);     // octal
  EXPECT_EQ(Eval("a + 0x1F"), 31);
  EXPECT_EQ(Eval("a + 5L"), 5);
  EXPECT_EQ(Eval("a + 9223372036854775807 + 1"), 9223372036854775808.0);  // overflow -> double
  EXPECT_EQ(Eval("a + 9223372036854775807 * 2"), 2 * 9223372036854775807.0);
}

// A JEXL real literal is a Java float, widened through its decimal text.
TEST(ExprProgram, RealLiteralsAreFloats) {
  EXPECT_EQ(Eval("a * 0.1", 3), 3 * 0.1);
  EXPECT_EQ(Eval("a + 0.123456789"), 0.12345679);
  EXPECT_EQ(Eval("a + 0.123456789d"), 0.123456789);
  EXPECT_EQ(Eval("a + 2.5e3"), 2500);
  EXPECT_EQ(Eval("a + 1.5f"), 1.5);
}

TEST(ExprProgram, ComparisonsAndLogic) {
  EXPECT_EQ(Eval("a > b", 2, 1), 1);
  EXPECT_EQ(Eval("a > b", 1, 2), 0);
  EXPECT_EQ(Eval("a >= b && b <= a", 2, 2), 1);
  EXPECT_EQ(Eval("a == b", 2, 2), 1);
  EXPECT_EQ(Eval("a != b", 2, 2), 0);
  EXPECT_EQ(Eval("a lt b or a gt b", 1, 2), 1);
  EXPECT_EQ(Eval("a eq b and not (a ne b)", 3, 3), 1);
  EXPECT_EQ(Eval("!a", 0), 1);
  EXPECT_EQ(Eval("!a", 5), 0);
  EXPECT_EQ(Eval("a || b", 0, 0), 0);
  EXPECT_EQ(Eval("(a > 1) + (b > 1)", 2, 2), 2);  // booleans count as 1
  EXPECT_EQ(Eval("a > 1 == true", 2), 1);
  EXPECT_EQ(Eval("-(a > 1)", 2), 0);  // negating a boolean is "not"
  // NaN is false, sorts below every number and equals NaN (JexlArithmetic).
  EXPECT_EQ(Eval("!a", kNaN), 1);
  EXPECT_EQ(Eval("a < 5", kNaN), 1);
  EXPECT_EQ(Eval("a > 5", kNaN), 0);
  EXPECT_EQ(Eval("a == b", kNaN, kNaN), 1);
  EXPECT_EQ(Eval("5 < a", kNaN), 0);
}

TEST(ExprProgram, Ternary) {
  EXPECT_EQ(Eval("a > b ? a : b", 3, 7), 7);
  EXPECT_EQ(Eval("a > b ? a : b", 9, 7), 9);
  EXPECT_EQ(Eval("a ? 1 : 2", 0), 2);  // an integer result becomes a double
  EXPECT_EQ(Eval("a ?: b", 0, 4), 4);
  EXPECT_EQ(Eval("a ?: b", 3, 4), 3);
  EXPECT_EQ(Eval("a > 0 ? b > 0 ? 1 : 2 : 3", 1, -1), 2);
}

TEST(ExprProgram, VariablesInOrderOfAppearance) {
  ExprProgram p;
  ASSERT_TRUE(ExprProgram::Parse("b + a * b - sys01", &p).ok());
  EXPECT_EQ(p.variables(), (std::vector<std::string>{"b", "a", "sys01"}));
  ASSERT_TRUE(ExprProgram::Parse("  $x_1\t+\n_y ", &p).ok());
  EXPECT_EQ(p.variables(), (std::vector<std::string>{"$x_1", "_y"}));
  ASSERT_TRUE(ExprProgram::Parse("1 + 2", &p).ok());
  EXPECT_TRUE(p.variables().empty());
}

TEST(ExprProgram, ErrorsNameThePosition) {
  EXPECT_EQ(ParseError(""), "Invalid expression []: empty expression at position 0");
  EXPECT_EQ(ParseError("a + "), "Invalid expression [a + ]: expected a value at position 4");
  EXPECT_EQ(ParseError("a + (b"), "Invalid expression [a + (b]: expected ')' at position 6");
  EXPECT_EQ(ParseError("a b"), "Invalid expression [a b]: unexpected 'b' at position 2");
  EXPECT_EQ(ParseError("a & b"),
            "Invalid expression [a & b]: unsupported operator or character '&' at position 2");
  EXPECT_EQ(ParseError("a = 1"),
            "Invalid expression [a = 1]: unsupported operator or character '=' at position 2");
  EXPECT_EQ(ParseError("a.b"),
            "Invalid expression [a.b]: only plain variable names are supported at position 1");
  EXPECT_EQ(ParseError("max(a)"),
            "Invalid expression [max(a)]: only plain variable names are supported at position 3");
  EXPECT_EQ(ParseError("null + a"),
            "Invalid expression [null + a]: unsupported keyword 'null' at position 0");
  EXPECT_EQ(ParseError("'x' + a"),
            "Invalid expression ['x' + a]: unsupported operator or character ''' at position 0");
  EXPECT_EQ(ParseError("a ? b"), "Invalid expression [a ? b]: expected ':' at position 5");
  EXPECT_EQ(ParseError("a == b == c"),
            "Invalid expression [a == b == c]: unsupported operator or character '=' at position 7");
  EXPECT_EQ(ParseError("1e5 + a"), "Invalid expression [1e5 + a]: malformed number at position 1");
  EXPECT_EQ(ParseError("99999999999999999999 + a"),
            "Invalid expression [99999999999999999999 + a]: integer literal out of range at "
            "position 0");
  EXPECT_EQ(ParseError("09 + a"), "Invalid expression [09 + a]: malformed number at position 1");
  EXPECT_EQ(ParseError("a; b"),
            "Invalid expression [a; b]: unsupported operator or character ';' at position 1");
}

TEST(ExprProgram, SizeAndDepthAreBounded) {
  EXPECT_EQ(ParseError(std::string(kMaxExprLength + 1, 'a')),
            "Invalid expression: longer than 4096 bytes");
  // Deep parentheses and long operator chains are refused, not recursed.
  const std::string parens = std::string(1000, '(') + "a" + std::string(1000, ')');
  EXPECT_NE(ParseError(parens).find("nests too deeply"), std::string::npos);
  std::string chain = "a";
  for (int i = 0; i < 500; ++i) chain += "+a";
  EXPECT_NE(ParseError(chain).find("nests too deeply"), std::string::npos);
  std::string unary(2000, '-');
  EXPECT_NE(ParseError(unary + "a").find("nests too deeply"), std::string::npos);
  std::string ok = "a";
  for (int i = 0; i < 100; ++i) ok += "+a";
  EXPECT_EQ(Eval(ok, 1), 101);
}

// Random expression trees over a, b and small integers, printed fully
// parenthesised and also with only the parentheses precedence needs; both
// texts must evaluate to the tree's value computed directly. Checks
// precedence, associativity and unary minus. Replay with SUNDIAL_SEED.
struct RandomTree {
  std::mt19937_64* rng;
  double a, b;

  // Returns the value; *full is fully parenthesised, *bare has the fewest
  // parentheses, prec is the binding strength of *bare's top operator.
  double Make(int depth, std::string* full, std::string* bare, int* prec) {
    const int kind = depth == 0 ? static_cast<int>((*rng)() % 3) : static_cast<int>((*rng)() % 8);
    if (kind == 0 || kind == 1) {
      *full = *bare = kind == 0 ? "a" : "b";
      *prec = 9;
      return kind == 0 ? a : b;
    }
    if (kind == 2) {  // a real literal keeps the arithmetic in doubles
      const int v = static_cast<int>((*rng)() % 10);
      *full = *bare = std::to_string(v) + ".0";
      *prec = 9;
      return v;
    }
    if (kind == 3) {
      std::string f, bb;
      int p = 0;
      const double v = Make(depth - 1, &f, &bb, &p);
      *full = "(-" + f + ")";
      *bare = "-" + (p >= 8 ? bb : "(" + bb + ")");
      *prec = 8;
      return -v;
    }
    static constexpr char kOps[] = {'+', '-', '*', '/'};
    const char op = kOps[(*rng)() % 4];
    const int my = op == '+' || op == '-' ? 1 : 2;
    std::string lf, lb, rf, rb;
    int lp = 0, rp = 0;
    const double l = Make(depth - 1, &lf, &lb, &lp);
    const double r = Make(depth - 1, &rf, &rb, &rp);
    *full = "(" + lf + " " + op + " " + rf + ")";
    // Left-associative: the left side needs parentheses below my strength,
    // the right side at or below it.
    *bare = (lp >= my ? lb : "(" + lb + ")") + " " + op + " " + (rp > my ? rb : "(" + rb + ")");
    *prec = my;
    switch (op) {
      case '+': return l + r;
      case '-': return l - r;
      case '*': return l * r;
      default: return r == 0 ? 0 : l / r;
    }
  }
};

TEST(ExprProgram, RandomTreesMatchDirectEvaluation) {
  uint64_t seed = std::random_device{}();
  if (const char* s = std::getenv("SUNDIAL_SEED")) seed = std::strtoull(s, nullptr, 10);
  std::printf("ExprProgram random trees seed: %llu (replay with SUNDIAL_SEED)\n",
              static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2000; ++round) {
    RandomTree t{&rng, static_cast<double>(rng() % 21) - 10, static_cast<double>(rng() % 7)};
    std::string full, bare;
    int prec = 0;
    const double want = t.Make(1 + static_cast<int>(rng() % 6), &full, &bare, &prec);
    for (const std::string& text : {full, bare}) {
      const double got = Eval(text, t.a, t.b);
      if (std::isnan(want)) {
        EXPECT_TRUE(std::isnan(got)) << "seed " << seed << ": " << text;
      } else {
        EXPECT_DOUBLE_EQ(got, want) << "seed " << seed << ": " << text << " a=" << t.a
                                    << " b=" << t.b;
      }
    }
  }
}

}  // namespace
}  // namespace sundial::query
