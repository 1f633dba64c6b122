#include "query_reply.h"

#include "server_json.h"

namespace sundial::server {

http::Reply ErrorReply(const Status& s) {
  int code = 500;
  switch (s.code()) {
    case Status::Code::kInvalidArgument: code = 400; break;
    case Status::Code::kNotFound: code = 404; break;
    case Status::Code::kResourceExhausted: code = 413; break;
    case Status::Code::kDeadlineExceeded: code = 400; break;
    default: break;
  }
  return CodedErrorReply(code, s, "query");
}

query::QueryLimits Limits(const ServiceContext* ctx) {
  query::QueryLimits l;
  l.max_series = ctx->options->query.max_series;
  l.max_points = ctx->options->query.max_points;
  l.deadline_ms = ctx->options->query.deadline.count();
  l.max_output_points = ctx->options->query.max_output_points;
  l.max_output_bytes = ctx->options->query.max_output_bytes;
  l.max_memory = ctx->options->query.max_memory;
  l.max_regex_length = ctx->options->query.max_regex_length;
  return l;
}

}  // namespace sundial::server
