#include "sundial/query/json_limits.h"

#include <string>

#include "sundial/query/query_spec.h"

namespace sundial::query {

namespace {

Status Refuse(const std::string& why) {
  return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                 kDetailsSeparator + why);
}

}  // namespace

Status CheckJsonBounds(std::string_view body, size_t max_bytes, int max_depth) {
  if (body.size() > max_bytes) {
    return Refuse("The JSON body is " + std::to_string(body.size()) +
                  " bytes, more than the limit of " + std::to_string(max_bytes));
  }
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped byte cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > max_depth) {
          return Refuse("The JSON body nests arrays and objects deeper than the limit of " +
                        std::to_string(max_depth));
        }
        break;
      case ']':
      case '}':
        --depth;  // unbalanced input is the parser's to report
        break;
      default:
        break;
    }
  }
  return Status::OK();
}

}  // namespace sundial::query
