#include "http_response.h"

#include <cstdint>

namespace sundial::relay {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= hay.size(); ++i) {
    if (EqualsNoCase(hay.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool ParseDecimal(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  *out = v;
  return true;
}

bool ParseHex(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 15) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) return false;
    v = v * 16 + static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

ParseResult Fail(std::string* error, const char* why) {
  *error = why;
  return ParseResult::kBad;
}

// Decodes a chunked body starting at in[pos]. kComplete sets *end past the
// last CRLF of the trailers.
ParseResult ParseChunked(std::string_view in, size_t pos, std::string* body, size_t* end,
                         std::string* error) {
  for (;;) {
    const size_t eol = in.find("\r\n", pos);
    if (eol == std::string_view::npos) {
      return in.size() - pos > 1024 ? Fail(error, "chunk size line too long")
                                    : ParseResult::kIncomplete;
    }
    std::string_view line = in.substr(pos, eol - pos);
    line = Trim(line.substr(0, line.find(';')));
    uint64_t n = 0;
    if (!ParseHex(line, &n)) return Fail(error, "bad chunk size");
    pos = eol + 2;
    if (n == 0) {
      // Trailers: lines until an empty one.
      for (;;) {
        const size_t t = in.find("\r\n", pos);
        if (t == std::string_view::npos) return ParseResult::kIncomplete;
        if (t - pos > kMaxResponseHead) return Fail(error, "trailer too long");
        const bool empty = t == pos;
        pos = t + 2;
        if (empty) {
          *end = pos;
          return ParseResult::kComplete;
        }
      }
    }
    if (body->size() + n > kMaxResponseBody) return Fail(error, "response body too large");
    if (in.size() - pos < n + 2) return ParseResult::kIncomplete;
    body->append(in.data() + pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
    if (in.substr(pos, 2) != "\r\n") return Fail(error, "chunk not followed by CRLF");
    pos += 2;
  }
}

}  // namespace

ParseResult ParseHttpResponse(std::string_view in, bool eof, HttpResponse* out, size_t* consumed,
                              std::string* error) {
  const size_t head_end = in.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    if (in.size() > kMaxResponseHead) return Fail(error, "response head too long");
    if (in.size() >= 5 && in.substr(0, 5) != "HTTP/") return Fail(error, "not an HTTP response");
    return eof ? Fail(error, "connection closed mid-response") : ParseResult::kIncomplete;
  }
  if (head_end > kMaxResponseHead) return Fail(error, "response head too long");
  std::string_view head = in.substr(0, head_end);
  const size_t eol = head.find("\r\n");
  const std::string_view status_line = head.substr(0, eol);
  // HTTP/1.x SP 3DIGIT [SP reason]
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." || status_line[8] != ' ') {
    return Fail(error, "bad status line");
  }
  uint64_t status = 0;
  if (!ParseDecimal(status_line.substr(9, 3), &status) || status < 100 || status > 599 ||
      (status_line.size() > 12 && status_line[12] != ' ')) {
    return Fail(error, "bad status code");
  }
  HttpResponse r;
  r.status = static_cast<int>(status);
  r.keep_alive = status_line[7] == '1';  // HTTP/1.0 closes by default
  bool chunked = false, have_length = false;
  uint64_t length = 0;
  std::string_view rest = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
  while (!rest.empty()) {
    const size_t e = rest.find("\r\n");
    const std::string_view line = rest.substr(0, e);
    rest = e == std::string_view::npos ? std::string_view() : rest.substr(e + 2);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return Fail(error, "bad header line");
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsNoCase(name, "content-length")) {
      uint64_t n = 0;
      if (!ParseDecimal(value, &n) || (have_length && n != length)) {
        return Fail(error, "bad Content-Length");
      }
      have_length = true;
      length = n;
    } else if (EqualsNoCase(name, "transfer-encoding")) {
      chunked = ContainsNoCase(value, "chunked");
    } else if (EqualsNoCase(name, "connection")) {
      if (ContainsNoCase(value, "close")) r.keep_alive = false;
      if (ContainsNoCase(value, "keep-alive")) r.keep_alive = true;
    }
  }
  const size_t body_start = head_end + 4;
  const bool no_body = r.status < 200 || r.status == 204 || r.status == 304;
  if (no_body) {
    *consumed = body_start;
  } else if (chunked) {
    size_t end = 0;
    const ParseResult pr = ParseChunked(in, body_start, &r.body, &end, error);
    if (pr == ParseResult::kIncomplete && eof) return Fail(error, "connection closed mid-body");
    if (pr != ParseResult::kComplete) return pr;
    *consumed = end;
  } else if (have_length) {
    if (length > kMaxResponseBody) return Fail(error, "response body too large");
    if (in.size() - body_start < length) {
      return eof ? Fail(error, "connection closed mid-body") : ParseResult::kIncomplete;
    }
    r.body.assign(in.data() + body_start, static_cast<size_t>(length));
    *consumed = body_start + static_cast<size_t>(length);
  } else {
    // Close-delimited.
    if (in.size() - body_start > kMaxResponseBody) return Fail(error, "response body too large");
    if (!eof) return ParseResult::kIncomplete;
    r.body.assign(in.substr(body_start));
    r.keep_alive = false;
    *consumed = in.size();
  }
  *out = std::move(r);
  return ParseResult::kComplete;
}

}  // namespace sundial::relay
