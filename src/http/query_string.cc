#include "sundial/http/query_string.h"

#include <algorithm>

namespace sundial::http {

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Status PercentDecode(std::string_view in, bool plus_is_space, std::string* out) {
  // Most keys, values and paths have nothing to decode: copy them at once.
  size_t first = 0;
  while (first < in.size() && in[first] != '%' && !(plus_is_space && in[first] == '+')) ++first;
  if (first == in.size()) {
    out->assign(in.data(), in.size());
    return Status::OK();
  }
  // The decoded text is never longer than the input: write it in place.
  out->resize(in.size());
  char* const begin = &(*out)[0];
  char* dst = begin + first;
  std::copy(in.data(), in.data() + first, begin);
  for (size_t i = first; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return Status::InvalidArgument("malformed percent escape in", in);
      const int hi = HexValue(in[i + 1]);
      const int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return Status::InvalidArgument("malformed percent escape in", in);
      *dst++ = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      *dst++ = ' ';
    } else {
      *dst++ = c;
    }
  }
  out->resize(static_cast<size_t>(dst - begin));
  return Status::OK();
}

Status ParseQueryString(std::string_view query, QueryParams* params) {
  // Keys and values are decoded straight into the list, sized once.
  auto* items = params->mutable_items();
  items->reserve(items->size() + 1 + static_cast<size_t>(std::count(query.begin(), query.end(), '&')));
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view piece = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (piece.empty()) continue;
    const size_t eq = piece.find('=');
    std::pair<std::string, std::string>& item = items->emplace_back();
    Status s = PercentDecode(piece.substr(0, eq), true, &item.first);
    if (s.ok() && eq != std::string_view::npos) {
      s = PercentDecode(piece.substr(eq + 1), true, &item.second);
    }
    if (!s.ok()) {
      items->pop_back();
      return s;
    }
  }
  return Status::OK();
}

Status ParseTarget(std::string_view target, std::string* path, QueryParams* params) {
  // An absolute-form target ("http://host:4242/api/...") keeps only its path.
  const size_t scheme = target.find("://");
  if (scheme != std::string_view::npos && scheme < target.find('/')) {
    const size_t slash = target.find('/', scheme + 3);
    target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  // Drop a fragment, then split off the query.
  const size_t hash = target.find('#');
  if (hash != std::string_view::npos) target = target.substr(0, hash);
  const size_t q = target.find('?');
  SUNDIAL_RETURN_IF_ERROR(PercentDecode(target.substr(0, q), false, path));
  if (q != std::string_view::npos) {
    SUNDIAL_RETURN_IF_ERROR(ParseQueryString(target.substr(q + 1), params));
  }
  return Status::OK();
}

}  // namespace sundial::http
