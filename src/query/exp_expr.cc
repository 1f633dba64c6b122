// ExprProgram: a recursive-descent parser for the JEXL subset described in
// exp_expr.h, and a tree-walking evaluator with JexlArithmetic's rules.
#include "sundial/query/exp_expr.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace sundial::query {
namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The words JEXL reserves; those we do not support are errors, not names.
bool IsReserved(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "or", "and", "eq", "ne", "lt", "gt", "le", "ge", "div", "mod", "not", "null", "true",
      "false", "new", "empty", "size", "if", "else", "for", "while", "var", "return"};
  return std::find(std::begin(kWords), std::end(kWords), w) != std::end(kWords);
}

// A JEXL real literal without suffix is a java.lang.Float, and JEXL turns
// it into a double through its decimal text (Double.parseDouble(
// String.valueOf(f))): the shortest digits that identify the float.
double FloatLiteralValue(const std::string& digits) {
  const float f = std::strtof(digits.c_str(), nullptr);
  if (!std::isfinite(f)) return static_cast<double>(f);
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf) - 1, f);
  *r.ptr = '\0';
  return std::strtod(buf, nullptr);
}

}  // namespace

// Characters of JEXL syntax we do not support (operators, strings, ...).
constexpr std::string_view kUnsupported = "&|^~=.;[]{}'\"#@";

// Parses one expression into an ExprProgram. One instance per Parse call.
class ExprParser {
 public:
  ExprParser(std::string_view text, ExprProgram* out) : s_(text), out_(out) {}

  Status Run() {
    if (s_.size() > kMaxExprLength) {
      return Status::InvalidArgument("Invalid expression: longer than " +
                                     std::to_string(kMaxExprLength) + " bytes");
    }
    SkipSpace();
    if (pos_ == s_.size()) return Error("empty expression");
    int32_t root = -1;
    SUNDIAL_RETURN_IF_ERROR(Ternary(&root));
    SkipSpace();
    if (pos_ != s_.size()) return Unexpected();
    out_->root_ = root;
    return Status::OK();
  }

 private:
  Status Error(const std::string& what) const {
    return Status::InvalidArgument("Invalid expression [" + std::string(s_) + "]: " + what +
                                   " at position " + std::to_string(pos_));
  }
  Status Unexpected() const {
    if (pos_ >= s_.size()) return Error("unexpected end of expression");
    const char c = s_[pos_];
    if (kUnsupported.find(c) != std::string_view::npos) {
      return Error(std::string("unsupported operator or character '") + c + "'");
    }
    return Error(std::string("unexpected '") + c + "'");
  }

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  // True (and consumed) if the next token is the symbol sym.
  bool Symbol(std::string_view sym) {
    SkipSpace();
    if (s_.substr(pos_, sym.size()) != sym) return false;
    // "<" must not be the start of "<=", "=" of "==", and so on.
    if (sym.size() == 1 && pos_ + 1 < s_.size()) {
      const char n = s_[pos_ + 1];
      if ((sym == "<" || sym == ">" || sym == "!") && n == '=') return false;
      if (sym == "?" && n == ':') return false;
      if ((sym == "&" && n == '&') || (sym == "|" && n == '|')) return false;
    }
    pos_ += sym.size();
    return true;
  }
  // True (and consumed) if the next token is the word w.
  bool Word(std::string_view w) {
    SkipSpace();
    if (s_.substr(pos_, w.size()) != w) return false;
    if (pos_ + w.size() < s_.size() && IsIdentChar(s_[pos_ + w.size()])) return false;
    pos_ += w.size();
    return true;
  }

  Status Add(ExprProgram::Node n, int32_t* id) {
    int depth = 1;
    for (int32_t c : {n.a, n.b, n.c}) {
      if (c >= 0) depth = std::max(depth, depth_[static_cast<size_t>(c)] + 1);
    }
    if (depth > kMaxExprDepth) return Error("expression nests too deeply");
    out_->nodes_.push_back(n);
    depth_.push_back(depth);
    *id = static_cast<int32_t>(out_->nodes_.size() - 1);
    return Status::OK();
  }
  Status Binary(ExprProgram::Op op, int32_t a, int32_t b, int32_t* id) {
    ExprProgram::Node n;
    n.op = op;
    n.a = a;
    n.b = b;
    return Add(n, id);
  }

  Status Ternary(int32_t* id) {
    int32_t cond = -1;
    SUNDIAL_RETURN_IF_ERROR(Or(&cond));
    if (Symbol("?:")) {
      int32_t other = -1;
      SUNDIAL_RETURN_IF_ERROR(Nested(&other));
      return Binary(ExprProgram::Op::kElvis, cond, other, id);
    }
    if (!Symbol("?")) {
      *id = cond;
      return Status::OK();
    }
    int32_t yes = -1, no = -1;
    SUNDIAL_RETURN_IF_ERROR(Nested(&yes));
    if (!Symbol(":")) return Error("expected ':'");
    SUNDIAL_RETURN_IF_ERROR(Nested(&no));
    ExprProgram::Node n;
    n.op = ExprProgram::Op::kTernary;
    n.a = cond;
    n.b = yes;
    n.c = no;
    return Add(n, id);
  }
  // A sub-expression that recurses into Ternary: counts parser recursion.
  Status Nested(int32_t* id) {
    if (++nesting_ > kMaxExprDepth) return Error("expression nests too deeply");
    Status s = Ternary(id);
    --nesting_;
    return s;
  }

  Status Or(int32_t* id) {
    SUNDIAL_RETURN_IF_ERROR(And(id));
    while (Symbol("||") || Word("or")) {
      int32_t r = -1;
      SUNDIAL_RETURN_IF_ERROR(And(&r));
      SUNDIAL_RETURN_IF_ERROR(Binary(ExprProgram::Op::kOr, *id, r, id));
    }
    return Status::OK();
  }
  Status And(int32_t* id) {
    SUNDIAL_RETURN_IF_ERROR(Equality(id));
    while (Symbol("&&") || Word("and")) {
      int32_t r = -1;
      SUNDIAL_RETURN_IF_ERROR(Equality(&r));
      SUNDIAL_RETURN_IF_ERROR(Binary(ExprProgram::Op::kAnd, *id, r, id));
    }
    return Status::OK();
  }
  // JEXL allows one equality and one relational operator per level
  // ("a == b == c" is a syntax error there too).
  Status Equality(int32_t* id) {
    SUNDIAL_RETURN_IF_ERROR(Relational(id));
    ExprProgram::Op op;
    if (Symbol("==") || Word("eq")) op = ExprProgram::Op::kEq;
    else if (Symbol("!=") || Word("ne")) op = ExprProgram::Op::kNe;
    else return Status::OK();
    int32_t r = -1;
    SUNDIAL_RETURN_IF_ERROR(Relational(&r));
    return Binary(op, *id, r, id);
  }
  Status Relational(int32_t* id) {
    SUNDIAL_RETURN_IF_ERROR(Additive(id));
    ExprProgram::Op op;
    if (Symbol("<=") || Word("le")) op = ExprProgram::Op::kLe;
    else if (Symbol(">=") || Word("ge")) op = ExprProgram::Op::kGe;
    else if (Symbol("<") || Word("lt")) op = ExprProgram::Op::kLt;
    else if (Symbol(">") || Word("gt")) op = ExprProgram::Op::kGt;
    else return Status::OK();
    int32_t r = -1;
    SUNDIAL_RETURN_IF_ERROR(Additive(&r));
    return Binary(op, *id, r, id);
  }
  Status Additive(int32_t* id) {
    SUNDIAL_RETURN_IF_ERROR(Multiplicative(id));
    for (;;) {
      ExprProgram::Op op;
      if (Symbol("+")) op = ExprProgram::Op::kAdd;
      else if (Symbol("-")) op = ExprProgram::Op::kSub;
      else return Status::OK();
      int32_t r = -1;
      SUNDIAL_RETURN_IF_ERROR(Multiplicative(&r));
      SUNDIAL_RETURN_IF_ERROR(Binary(op, *id, r, id));
    }
  }
  Status Multiplicative(int32_t* id) {
    SUNDIAL_RETURN_IF_ERROR(Unary(id));
    for (;;) {
      ExprProgram::Op op;
      if (Symbol("*")) op = ExprProgram::Op::kMul;
      else if (Symbol("/") || Word("div")) op = ExprProgram::Op::kDiv;
      else if (Symbol("%") || Word("mod")) op = ExprProgram::Op::kMod;
      else return Status::OK();
      int32_t r = -1;
      SUNDIAL_RETURN_IF_ERROR(Unary(&r));
      SUNDIAL_RETURN_IF_ERROR(Binary(op, *id, r, id));
    }
  }
  Status Unary(int32_t* id) {
    ExprProgram::Op op;
    if (Symbol("-")) op = ExprProgram::Op::kNeg;
    else if (Symbol("!") || Word("not")) op = ExprProgram::Op::kNot;
    else return Primary(id);
    if (++nesting_ > kMaxExprDepth) return Error("expression nests too deeply");
    int32_t operand = -1;
    SUNDIAL_RETURN_IF_ERROR(Unary(&operand));
    --nesting_;
    ExprProgram::Node n;
    n.op = op;
    n.a = operand;
    return Add(n, id);
  }
  Status Primary(int32_t* id) {
    SkipSpace();
    if (pos_ >= s_.size()) return Error("expected a value");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      SUNDIAL_RETURN_IF_ERROR(Nested(id));
      if (!Symbol(")")) return Error("expected ')'");
      return Status::OK();
    }
    if (IsDigit(c)) return Number(id);
    if (!IsIdentStart(c)) {
      return kUnsupported.find(c) != std::string_view::npos ? Unexpected()
                                                            : Error("expected a value");
    }
    const size_t start = pos_;
    while (pos_ < s_.size() && IsIdentChar(s_[pos_])) ++pos_;
    const std::string_view word = s_.substr(start, pos_ - start);
    ExprProgram::Node n;
    if (word == "true" || word == "false") {
      n.op = ExprProgram::Op::kBool;
      n.i = word == "true";
      return Add(n, id);
    }
    if (IsReserved(word)) {
      pos_ = start;
      return Error("unsupported keyword '" + std::string(word) + "'");
    }
    if (pos_ < s_.size() && (s_[pos_] == '.' || s_[pos_] == '(' || s_[pos_] == '[')) {
      return Error("only plain variable names are supported");
    }
    auto& vars = out_->variables_;
    auto it = std::find(vars.begin(), vars.end(), word);
    if (it == vars.end()) it = vars.insert(vars.end(), std::string(word));
    n.op = ExprProgram::Op::kVar;
    n.i = it - vars.begin();
    return Add(n, id);
  }

  // Integer and real literals with JEXL's bases and suffixes.
  Status Number(int32_t* id) {
    const size_t start = pos_;
    ExprProgram::Node n;
    const bool hex = s_.size() - pos_ > 1 && s_[pos_] == '0' &&
                     (s_[pos_ + 1] == 'x' || s_[pos_ + 1] == 'X');
    if (hex) pos_ += 2;
    const size_t digits = pos_;
    while (pos_ < s_.size() && (IsDigit(s_[pos_]) ||
                                (hex && std::isxdigit(static_cast<unsigned char>(s_[pos_]))))) {
      ++pos_;
    }
    const bool real = !hex && pos_ + 1 < s_.size() && s_[pos_] == '.' && IsDigit(s_[pos_ + 1]);
    if (real) {
      ++pos_;
      while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
        size_t e = pos_ + 1;
        if (e < s_.size() && (s_[e] == '+' || s_[e] == '-')) ++e;
        if (e < s_.size() && IsDigit(s_[e])) {
          pos_ = e;
          while (pos_ < s_.size() && IsDigit(s_[pos_])) ++pos_;
        }
      }
      const std::string text(s_.substr(start, pos_ - start));
      n.op = ExprProgram::Op::kReal;
      const char suffix = pos_ < s_.size() ? s_[pos_] : '\0';
      if (suffix == 'd' || suffix == 'D' || suffix == 'b' || suffix == 'B') {
        n.d = std::strtod(text.c_str(), nullptr);
        ++pos_;
      } else {
        if (suffix == 'f' || suffix == 'F') ++pos_;
        n.d = FloatLiteralValue(text);
      }
    } else {
      if (pos_ == digits) return Error("malformed number");
      const bool octal = !hex && s_[start] == '0' && pos_ - start > 1;
      const int base = hex ? 16 : octal ? 8 : 10;
      uint64_t u = 0;
      const char* first = s_.data() + digits + (octal ? 1 : 0);
      const auto r = std::from_chars(first, s_.data() + pos_, u, base);
      if (r.ec == std::errc::result_out_of_range || u > static_cast<uint64_t>(INT64_MAX)) {
        pos_ = start;
        return Error("integer literal out of range");
      }
      if (r.ptr != s_.data() + pos_) {
        pos_ = static_cast<size_t>(r.ptr - s_.data());
        return Error("malformed number");
      }
      n.op = ExprProgram::Op::kInt;
      n.i = static_cast<int64_t>(u);
      if (pos_ < s_.size() && (s_[pos_] == 'l' || s_[pos_] == 'L' || s_[pos_] == 'h' ||
                               s_[pos_] == 'H')) {
        ++pos_;
      }
    }
    if (pos_ < s_.size() && IsIdentChar(s_[pos_])) return Error("malformed number");
    return Add(n, id);
  }

  const std::string_view s_;
  ExprProgram* const out_;
  size_t pos_ = 0;
  int nesting_ = 0;
  std::vector<int> depth_;  // per node: height of its subtree
};

Status ExprProgram::Parse(std::string_view text, ExprProgram* out) {
  ExprProgram p;
  p.text_ = std::string(text.substr(0, std::min(text.size(), kMaxExprLength + 1)));
  ExprParser parser(text, &p);
  SUNDIAL_RETURN_IF_ERROR(parser.Run());
  *out = std::move(p);
  return Status::OK();
}

namespace {

// A JEXL value: an integer (Integer/Long), a double or a boolean.
struct Val {
  enum Kind : uint8_t { kInt, kDouble, kBool } kind;
  int64_t i;  // kInt; kBool 0/1
  double d;   // kDouble
  static Val Int(int64_t v) { return {kInt, v, 0}; }
  static Val Double(double v) { return {kDouble, 0, v}; }
  static Val Bool(bool v) { return {kBool, v ? 1 : 0, 0}; }
};

double AsDouble(const Val& v) { return v.kind == Val::kDouble ? v.d : static_cast<double>(v.i); }

// JexlArithmetic.toBoolean.
bool Truthy(const Val& v) {
  if (v.kind == Val::kBool) return v.i != 0;
  const double d = AsDouble(v);
  return !std::isnan(d) && d != 0;
}

// JexlArithmetic.compare: NaN sorts below every number and equals NaN.
int Compare(const Val& l, const Val& r) {
  if (l.kind == Val::kDouble || r.kind == Val::kDouble) {
    const double a = AsDouble(l), b = AsDouble(r);
    if (std::isnan(a)) return std::isnan(b) ? 0 : -1;
    if (std::isnan(b)) return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  return l.i < r.i ? -1 : l.i > r.i ? 1 : 0;
}

bool Equals(const Val& l, const Val& r) {
  if (l.kind == Val::kBool || r.kind == Val::kBool) return Truthy(l) == Truthy(r);
  return Compare(l, r) == 0;
}

Val Arith(ExprProgram::Op op, const Val& l, const Val& r) {
  using Op = ExprProgram::Op;
  if (l.kind == Val::kDouble || r.kind == Val::kDouble) {
    const double a = AsDouble(l), b = AsDouble(r);
    switch (op) {
      case Op::kAdd: return Val::Double(a + b);
      case Op::kSub: return Val::Double(a - b);
      case Op::kMul: return Val::Double(a * b);
      case Op::kDiv: return Val::Double(b == 0 ? 0.0 : a / b);
      default: return Val::Double(b == 0 ? 0.0 : std::fmod(a, b));
    }
  }
  const int64_t a = l.i, b = r.i;
  int64_t out = 0;
  switch (op) {
    case Op::kAdd:
      if (__builtin_add_overflow(a, b, &out)) return Val::Double(AsDouble(l) + AsDouble(r));
      return Val::Int(out);
    case Op::kSub:
      if (__builtin_sub_overflow(a, b, &out)) return Val::Double(AsDouble(l) - AsDouble(r));
      return Val::Int(out);
    case Op::kMul:
      if (__builtin_mul_overflow(a, b, &out)) return Val::Double(AsDouble(l) * AsDouble(r));
      return Val::Int(out);
    case Op::kDiv:
      if (b == 0) return Val::Double(0.0);
      if (a == INT64_MIN && b == -1) return Val::Double(-static_cast<double>(a));
      return Val::Int(a / b);
    default:  // BigInteger.mod: a non-negative result; a divisor <= 0 throws
      if (b <= 0) return Val::Double(0.0);
      return Val::Int(((a % b) + b) % b);
  }
}

Val Eval(const std::vector<ExprProgram::Node>& nodes, int32_t id, const double* vars) {
  using Op = ExprProgram::Op;
  const ExprProgram::Node& n = nodes[static_cast<size_t>(id)];
  switch (n.op) {
    case Op::kInt: return Val::Int(n.i);
    case Op::kReal: return Val::Double(n.d);
    case Op::kBool: return Val::Bool(n.i != 0);
    case Op::kVar: return Val::Double(vars[n.i]);
    case Op::kNeg: {
      const Val v = Eval(nodes, n.a, vars);
      if (v.kind == Val::kBool) return Val::Bool(v.i == 0);
      if (v.kind == Val::kDouble) return Val::Double(-v.d);
      if (v.i == INT64_MIN) return Val::Double(-static_cast<double>(v.i));
      return Val::Int(-v.i);
    }
    case Op::kNot: return Val::Bool(!Truthy(Eval(nodes, n.a, vars)));
    case Op::kAdd: case Op::kSub: case Op::kMul: case Op::kDiv: case Op::kMod:
      return Arith(n.op, Eval(nodes, n.a, vars), Eval(nodes, n.b, vars));
    case Op::kEq: return Val::Bool(Equals(Eval(nodes, n.a, vars), Eval(nodes, n.b, vars)));
    case Op::kNe: return Val::Bool(!Equals(Eval(nodes, n.a, vars), Eval(nodes, n.b, vars)));
    case Op::kLt: return Val::Bool(Compare(Eval(nodes, n.a, vars), Eval(nodes, n.b, vars)) < 0);
    case Op::kLe: return Val::Bool(Compare(Eval(nodes, n.a, vars), Eval(nodes, n.b, vars)) <= 0);
    case Op::kGt: return Val::Bool(Compare(Eval(nodes, n.a, vars), Eval(nodes, n.b, vars)) > 0);
    case Op::kGe: return Val::Bool(Compare(Eval(nodes, n.a, vars), Eval(nodes, n.b, vars)) >= 0);
    case Op::kAnd:
      return Val::Bool(Truthy(Eval(nodes, n.a, vars)) && Truthy(Eval(nodes, n.b, vars)));
    case Op::kOr:
      return Val::Bool(Truthy(Eval(nodes, n.a, vars)) || Truthy(Eval(nodes, n.b, vars)));
    case Op::kTernary:
      return Truthy(Eval(nodes, n.a, vars)) ? Eval(nodes, n.b, vars) : Eval(nodes, n.c, vars);
    case Op::kElvis: {
      const Val v = Eval(nodes, n.a, vars);
      return Truthy(v) ? v : Eval(nodes, n.b, vars);
    }
  }
  return Val::Double(std::numeric_limits<double>::quiet_NaN());
}

}  // namespace

double ExprProgram::Evaluate(const double* vars) const {
  const Val v = Eval(nodes_, root_, vars);
  return AsDouble(v);
}

}  // namespace sundial::query
