#include "server_json.h"

#include <spdlog/spdlog.h>
#include <string>

namespace sundial::server {

http::Reply StatusReply(const Status& s) {
  std::string message, details;
  query::SplitErrorDetails(s.message(), &message, &details);
  int code = 500;
  switch (s.code()) {
    case Status::Code::kInvalidArgument: code = 400; break;
    case Status::Code::kNotFound: code = 404; break;
    case Status::Code::kUnavailable: code = 503; break;
    default: break;
  }
  if (code >= 500) spdlog::warn("request failed: {}", s.ToString());
  return http::Reply::Error(code, message, details);
}

Status BadJson() {
  return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                 query::kDetailsSeparator + "Malformed JSON in the request body");
}

}  // namespace sundial::server
