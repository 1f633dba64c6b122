// The /api/query/gexp expression parser (gexp_parser.h).
#include "sundial/query/gexp_parser.h"

#include <utility>

namespace sundial::query {
namespace {

struct NamedFunction {
  std::string_view name;
  GexpFunction fn;
};

// OpenTSDB 2.4's ExpressionFactory registers the short names too: shift
// for timeShift, and sum, difference, multiply and divide for the *Series
// functions (its addTSDBFunctions).
constexpr NamedFunction kFunctions[] = {
    {"absolute", GexpFunction::kAbsolute},
    {"alias", GexpFunction::kAlias},
    {"diffSeries", GexpFunction::kDiffSeries},
    {"difference", GexpFunction::kDiffSeries},
    {"divideSeries", GexpFunction::kDivideSeries},
    {"divide", GexpFunction::kDivideSeries},
    {"highestCurrent", GexpFunction::kHighestCurrent},
    {"highestMax", GexpFunction::kHighestMax},
    {"movingAverage", GexpFunction::kMovingAverage},
    {"multiplySeries", GexpFunction::kMultiplySeries},
    {"multiply", GexpFunction::kMultiplySeries},
    {"scale", GexpFunction::kScale},
    {"sumSeries", GexpFunction::kSumSeries},
    {"sum", GexpFunction::kSumSeries},
    {"timeShift", GexpFunction::kTimeShift},
    {"shift", GexpFunction::kTimeShift},
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

bool IsName(std::string_view s) {
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return !s.empty();
}

// Recursive descent over byte ranges [b, e) of one text; positions in
// errors are offsets into the whole text.
class GexpParser {
 public:
  explicit GexpParser(std::string_view text) : text_(text) {}

  Status Error(const std::string& what, size_t pos) const {
    return Status::InvalidArgument("Invalid expression [" + std::string(text_) + "]: " + what +
                                   " at position " + std::to_string(pos));
  }

  // Parses the call text_[b, e) (whitespace around it allowed).
  Status ParseCall(size_t b, size_t e, int depth, GexpNode* out) const {
    if (depth >= kMaxGexpDepth) {
      return Error("calls nested more than " + std::to_string(kMaxGexpDepth) + " deep", b);
    }
    while (b < e && IsSpace(text_[b])) ++b;
    while (e > b && IsSpace(text_[e - 1])) --e;
    size_t p = b;
    while (p < e && text_[p] != '(' && !IsSpace(text_[p])) ++p;
    const std::string_view name = text_.substr(b, p - b);
    if (name.empty()) return Error("expected a function name", b);
    if (!FindGexpFunction(name, &out->function)) {
      return Error("function " + std::string(name) + " has not been implemented", b);
    }
    out->kind = GexpNode::Kind::kCall;
    out->name = std::string(name);
    out->pos = b;
    while (p < e && IsSpace(text_[p])) ++p;
    if (p >= e || text_[p] != '(') return Error("expected '(' after " + out->name, p);
    ++p;
    while (p < e && IsSpace(text_[p])) ++p;
    if (p < e && text_[p] == ')') return Finish(p + 1, e);
    for (size_t n = 0;; ++n) {
      if (n >= kMaxGexpArgs) {
        return Error("more than " + std::to_string(kMaxGexpArgs) + " arguments", p);
      }
      size_t end = 0;
      SUNDIAL_RETURN_IF_ERROR(ScanToken(p, e, &end));
      SUNDIAL_RETURN_IF_ERROR(AddArgument(p, end, depth, out));
      if (text_[end] == ')') return Finish(end + 1, e);
      p = end + 1;  // past ','
      if (p < e && text_[p] == ',') ++p;  // OpenTSDB's ",,"
    }
  }

 private:
  // Only whitespace may follow the ')' that closes a call.
  Status Finish(size_t p, size_t e) const {
    while (p < e && IsSpace(text_[p])) ++p;
    if (p < e) return Error("unexpected text after ')'", p);
    return Status::OK();
  }

  // Finds the end of the argument starting at p: the first ',' or ')'
  // outside parentheses, braces and single quotes. *end is its offset.
  Status ScanToken(size_t p, size_t e, size_t* end) const {
    int parens = 0, braces = 0;
    bool quoted = false;
    for (size_t i = p; i < e; ++i) {
      const char c = text_[i];
      if (quoted) {
        quoted = c != '\'';
        continue;
      }
      switch (c) {
        case '\'': quoted = true; break;
        case '{': ++braces; break;
        case '}':
          if (--braces < 0) return Error("unbalanced '}'", i);
          break;
        case '(': ++parens; break;
        case ')':
          if (parens == 0 && braces == 0) {
            *end = i;
            return Status::OK();
          }
          --parens;
          break;
        case ',':
          if (parens == 0 && braces == 0) {
            *end = i;
            return Status::OK();
          }
          break;
        default: break;
      }
    }
    if (quoted) return Error("unterminated quote", e);
    return Error("missing ')'", e);
  }

  // Classifies text_[b, e) the way OpenTSDB's parseParam does.
  Status AddArgument(size_t b, size_t e, int depth, GexpNode* call) const {
    while (b < e && IsSpace(text_[b])) ++b;
    while (e > b && IsSpace(text_[e - 1])) --e;
    if (b == e) return Error("empty argument", b);
    const std::string_view arg = text_.substr(b, e - b);
    // OpenTSDB takes any token with "(" and ")" for a call, which breaks
    // metric queries with filter functions ({host=literal_or(a|b)}); a call
    // here is a plain name before the "(".
    const size_t open = arg.find('(');
    const bool quoted = arg.front() == '\'';
    if (!quoted && open != std::string_view::npos && open > 0 &&
        IsName(arg.substr(0, open))) {
      GexpNode& sub = call->inputs.emplace_back();
      return ParseCall(b, e, depth + 1, &sub);
    }
    if (!quoted && arg.find(':') != std::string_view::npos) {
      GexpNode& m = call->inputs.emplace_back();
      m.kind = GexpNode::Kind::kMetric;
      m.name = std::string(arg);
      m.pos = b;
      return Status::OK();
    }
    call->params.emplace_back(arg);
    return Status::OK();
  }

  const std::string_view text_;
};

}  // namespace

bool FindGexpFunction(std::string_view name, GexpFunction* out) {
  for (const NamedFunction& f : kFunctions) {
    if (f.name == name) {
      *out = f.fn;
      return true;
    }
  }
  return false;
}

Status ParseGexp(std::string_view text, GexpNode* out) {
  const GexpParser parser(text);
  if (text.empty()) return Status::InvalidArgument("Expression may not be null or empty");
  if (text.size() > kMaxGexpLength) {
    return Status::InvalidArgument("Invalid expression: longer than " +
                                   std::to_string(kMaxGexpLength) + " bytes");
  }
  GexpNode node;
  SUNDIAL_RETURN_IF_ERROR(parser.ParseCall(0, text.size(), 0, &node));
  *out = std::move(node);
  return Status::OK();
}

}  // namespace sundial::query
