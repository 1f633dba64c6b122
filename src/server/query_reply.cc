#include "query_reply.h"

#include <spdlog/spdlog.h>
#include <string>

#include "sundial/query/query_spec.h"

namespace sundial::server {

http::Reply ErrorReply(const Status& s) {
  std::string message, details;
  query::SplitErrorDetails(s.message(), &message, &details);
  int code = 500;
  switch (s.code()) {
    case Status::Code::kInvalidArgument: code = 400; break;
    case Status::Code::kNotFound: code = 404; break;
    case Status::Code::kResourceExhausted: code = 413; break;
    case Status::Code::kDeadlineExceeded: code = 400; break;
    default: break;
  }
  if (code >= 500) spdlog::warn("query failed: {}", s.ToString());
  return http::Reply::Error(code, message, details);
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
