#include "server_json.h"

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <string>

namespace sundial::server {

http::Reply CodedErrorReply(int code, const Status& s, const char* what) {
  std::string message, details;
  query::SplitErrorDetails(s.message(), &message, &details);
  if (code >= 500) spdlog::warn("{} failed: {}", what, s.ToString());
  return http::Reply::Error(code, message, details);
}

http::Reply StatusReply(const Status& s) {
  int code = 500;
  switch (s.code()) {
    case Status::Code::kInvalidArgument: code = 400; break;
    case Status::Code::kNotFound: code = 404; break;
    case Status::Code::kUnavailable: code = 503; break;
    case Status::Code::kResourceExhausted:  // the MetaStore's bound
      return http::Reply::Error(507, "meta data store is full",
                                s.message() + "; delete annotations or meta data, or raise "
                                              "storage.meta_max_bytes");
    default: break;
  }
  return CodedErrorReply(code, s, "request");
}

Status BadJson() {
  return Status::InvalidArgument(std::string("Unable to parse the given JSON") +
                                 query::kDetailsSeparator + "Malformed JSON in the request body");
}

std::string DumpJson(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sundial::server
