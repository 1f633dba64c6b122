#include "sundial/http/request_parser.h"

#include <http_parser.h>

#include "ascii_util.h"
#include "sundial/http/body_codec.h"
#include "sundial/http/query_string.h"

namespace sundial::http {

namespace {

bool ToMethod(unsigned m, bool allow_head, Method* out) {
  switch (m) {
    case HTTP_GET: *out = Method::kGet; return true;
    case HTTP_POST: *out = Method::kPost; return true;
    case HTTP_PUT: *out = Method::kPut; return true;
    case HTTP_DELETE: *out = Method::kDelete; return true;
    case HTTP_OPTIONS: *out = Method::kOptions; return true;
    case HTTP_HEAD: *out = Method::kHead; return allow_head;
    default: return false;
  }
}

// Headers are capped well below http_parser's own 80 KiB limit per
// request: URL plus all fields.
constexpr size_t kMaxHeaderBytes = 64 * 1024;

}  // namespace

// Fields a typical request carries; reserved once per request so adding
// them does not grow the vector step by step.
constexpr size_t kTypicalHeaderFields = 8;

struct RequestParser::State {
  http_parser parser;
  http_parser_settings settings;
  // The last field of current_.headers is still being received: its name
  // (!in_value) or its value (in_value) may continue in the next callback.
  bool in_field = false;
  bool in_value = false;
  size_t header_bytes = 0;
};

// Static trampolines from http_parser's C callbacks into the parser object.
struct RequestParser::Callbacks {
  static RequestParser* Self(http_parser* p) { return static_cast<RequestParser*>(p->data); }

  static int OnMessageBegin(http_parser* p) {
    RequestParser* self = Self(p);
    self->current_ = Request();
    self->current_.headers.mutable_fields()->reserve(kTypicalHeaderFields);
    self->state_->in_field = false;
    self->state_->in_value = false;
    self->state_->header_bytes = 0;
    self->in_message_ = true;
    return 0;
  }

  static bool CountHeaderBytes(RequestParser* self, size_t n) {
    self->state_->header_bytes += n;
    if (self->state_->header_bytes > kMaxHeaderBytes) {
      return self->Fail(431, "Request headers too large");
    }
    return true;
  }

  static int OnUrl(http_parser* p, const char* at, size_t n) {
    RequestParser* self = Self(p);
    if (!CountHeaderBytes(self, n)) return -1;
    self->current_.target.append(at, n);
    return 0;
  }

  // A field's name and value each arrive in one or more pieces (a piece
  // ends where a read ended); a name piece after a value starts the next
  // field. Both are appended straight into the request's headers.
  static int OnHeaderField(http_parser* p, const char* at, size_t n) {
    RequestParser* self = Self(p);
    if (!CountHeaderBytes(self, n)) return -1;
    State& st = *self->state_;
    auto* fields = self->current_.headers.mutable_fields();
    if (!st.in_field || st.in_value) {
      DropNamelessField(fields);
      fields->emplace_back();
      st.in_field = true;
      st.in_value = false;
    }
    fields->back().first.append(at, n);
    return 0;
  }

  static int OnHeaderValue(http_parser* p, const char* at, size_t n) {
    RequestParser* self = Self(p);
    if (!CountHeaderBytes(self, n)) return -1;
    State& st = *self->state_;
    auto* fields = self->current_.headers.mutable_fields();
    if (!st.in_field) {  // a value with no name before it: kept nowhere
      fields->emplace_back();
      st.in_field = true;
    }
    st.in_value = true;
    fields->back().second.append(at, n);
    return 0;
  }

  // A field whose name is empty is not kept.
  static void DropNamelessField(std::vector<std::pair<std::string, std::string>>* fields) {
    if (!fields->empty() && fields->back().first.empty()) fields->pop_back();
  }

  static int OnHeadersComplete(http_parser* p) {
    RequestParser* self = Self(p);
    DropNamelessField(self->current_.headers.mutable_fields());
    self->state_->in_field = false;
    Request& r = self->current_;
    r.http_major = p->http_major;
    r.http_minor = p->http_minor;
    if (!ToMethod(p->method, self->limits_.allow_head, &r.method)) {
      self->Fail(405, "Method not allowed", /*bare=*/true);
      return -1;
    }
    if ((p->flags & F_CONTENTLENGTH) && p->content_length > self->limits_.max_body_bytes) {
      self->Fail(413, "Request body too large");
      return -1;
    }
    if (p->flags & F_CONTENTLENGTH) {
      r.body.reserve(static_cast<size_t>(p->content_length));  // at most the body limit
    }
    if (p->http_major == 1 && p->http_minor >= 1 &&
        EqualsNoCase(r.headers.Get("Expect"), "100-continue")) {
      self->expect_continue_ = true;
    }
    return 0;
  }

  static int OnBody(http_parser* p, const char* at, size_t n) {
    RequestParser* self = Self(p);
    std::string& body = self->current_.body;
    if (body.size() + n > self->limits_.max_body_bytes) {
      self->Fail(413, "Request body too large");
      return -1;
    }
    body.append(at, n);
    return 0;
  }

  static int OnMessageComplete(http_parser* p) {
    RequestParser* self = Self(p);
    self->current_.keep_alive = http_should_keep_alive(p) != 0;
    if (!self->FinishMessage()) return -1;
    self->complete_ = true;
    self->in_message_ = false;
    // Stop after this request: the caller answers it before the next.
    http_parser_pause(p, 1);
    return 0;
  }
};

RequestParser::RequestParser(const ParserLimits& limits)
    : limits_(limits), state_(std::make_unique<State>()) {
  http_parser_init(&state_->parser, HTTP_REQUEST);
  state_->parser.data = this;
  http_parser_settings& s = state_->settings;
  http_parser_settings_init(&s);
  s.on_message_begin = &Callbacks::OnMessageBegin;
  s.on_url = &Callbacks::OnUrl;
  s.on_header_field = &Callbacks::OnHeaderField;
  s.on_header_value = &Callbacks::OnHeaderValue;
  s.on_headers_complete = &Callbacks::OnHeadersComplete;
  s.on_body = &Callbacks::OnBody;
  s.on_message_complete = &Callbacks::OnMessageComplete;
}

RequestParser::~RequestParser() = default;

bool RequestParser::Fail(int status, std::string message, bool bare) {
  if (!failed_) {
    failed_ = true;
    error_.status = status;
    error_.message = std::move(message);
    error_.bare = bare;
  }
  return false;
}

bool RequestParser::FinishMessage() {
  Request& r = current_;
  Status s = ParseTarget(r.target, &r.path, &r.params);
  if (!s.ok()) return Fail(400, "Malformed request URL: " + s.message());
  const std::string_view encoding = r.headers.Get("Content-Encoding");
  const ContentCoding coding = ParseContentCoding(encoding);
  if (coding == ContentCoding::kUnknown) {
    return Fail(415, "Unsupported Content-Encoding: " + std::string(encoding));
  }
  if (coding != ContentCoding::kIdentity && !r.body.empty()) {
    std::string inflated;
    s = Inflate(coding, r.body, limits_.max_body_bytes, &inflated);
    if (s.IsResourceExhausted()) return Fail(413, "Request body too large");
    if (!s.ok()) return Fail(400, "Unable to decompress the request body: " + s.message());
    r.body.swap(inflated);
  }
  return true;
}

RequestParser::Result RequestParser::Parse(const char* data, size_t size, size_t* consumed,
                                           Request* request) {
  *consumed = 0;
  if (failed_) return Result::kError;
  if (size == 0) return Result::kNeedMore;  // 0 bytes would mean EOF to http_parser
  http_parser* p = &state_->parser;
  const size_t n = http_parser_execute(p, &state_->settings, data, size);
  *consumed = n;
  const http_errno err = HTTP_PARSER_ERRNO(p);
  if (complete_) {
    complete_ = false;
    if (err == HPE_PAUSED) http_parser_pause(p, 0);
    *request = std::move(current_);
    return Result::kRequest;
  }
  if (failed_) return Result::kError;
  if (err != HPE_OK) {
    Fail(400, std::string("Malformed HTTP request: ") + http_errno_description(err));
    return Result::kError;
  }
  return Result::kNeedMore;
}

}  // namespace sundial::http
