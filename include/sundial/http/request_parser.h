// RequestParser: incremental HTTP/1.x request parser for one connection.
//
// Why a wrapper: the byte-level parsing is done by the http_parser library
// (Debian libhttp-parser-dev, well fuzzed); this class adds what a server
// needs around it: a body limit, method filtering, chunked and compressed
// bodies decoded into Request::body, query-string decoding, "Expect:
// 100-continue", and one request at a time so pipelined requests can be
// answered in order.
//
// Errors are final: after Parse() returns kError the connection answers
// error() and closes.
//
// Thread-safety: none; one parser per connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "sundial/http/request.h"

namespace sundial::http {

struct ParserLimits {
  uint64_t max_body_bytes = 64ull << 20;  // after decoding; 413 beyond
  // Parse HEAD requests (for the router, which serves HEAD only on routes
  // that list it); when false HEAD is a bare 405 like any unknown method.
  bool allow_head = false;
};

struct ParseError {
  int status = 400;     // 400, 405 (bare, method not supported), 413, 505
  std::string message;  // for the JSON error body
  bool bare = false;    // answer with no body (OpenTSDB's bare 405)
};

class RequestParser {
 public:
  enum class Result {
    kNeedMore,  // all input consumed, no complete request yet
    kRequest,   // *request holds a complete request; more input may remain
    kError,     // see error(); stop reading
  };

  explicit RequestParser(const ParserLimits& limits);
  ~RequestParser();

  RequestParser(const RequestParser&) = delete;
  RequestParser& operator=(const RequestParser&) = delete;

  // Feeds bytes. *consumed is set to how many bytes were used; on kRequest
  // the rest belongs to the next request and must be fed again.
  Result Parse(const char* data, size_t size, size_t* consumed, Request* request);

  const ParseError& error() const { return error_; }

  // True once after the headers of a request that carries
  // "Expect: 100-continue" were parsed; the caller should send
  // "HTTP/1.1 100 Continue" so the client sends the body.
  bool TakeExpectContinue() {
    bool v = expect_continue_;
    expect_continue_ = false;
    return v;
  }

  // True while a request has begun and is not complete yet.
  bool in_message() const { return in_message_; }
  // Body bytes of the request in progress received so far (0 outside one).
  uint64_t body_bytes() const { return in_message_ ? current_.body.size() : 0; }

 private:
  struct Callbacks;
  friend struct Callbacks;

  bool Fail(int status, std::string message, bool bare = false);
  bool FinishMessage();

  const ParserLimits limits_;
  struct State;
  std::unique_ptr<State> state_;
  Request current_;
  ParseError error_;
  bool expect_continue_ = false;
  bool in_message_ = false;
  bool complete_ = false;
  bool failed_ = false;
};

}  // namespace sundial::http
