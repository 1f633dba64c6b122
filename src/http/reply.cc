#include "sundial/http/reply.h"

#include <cstdio>

namespace sundial::http {

Reply Reply::Json(std::string body, int status) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

Reply Reply::Error(int status, std::string_view message, std::string_view details) {
  Reply r;
  r.status = status;
  std::string& b = r.body;
  b.reserve(64 + message.size() + details.size());
  b += "{\"error\":{\"code\":";
  b += std::to_string(status);
  b += ",\"message\":";
  AppendJsonString(message, &b);
  if (!details.empty()) {
    b += ",\"details\":";
    AppendJsonString(details, &b);
  }
  b += "}}";
  return r;
}

Reply Reply::NoContent() {
  Reply r;
  r.status = 204;
  return r;
}

Reply Reply::EndpointNotFound() { return Error(404, "Endpoint not found"); }

Reply Reply::PageNotFound(std::string_view path) {
  Reply r;
  r.status = 404;
  r.content_type = "text/html; charset=UTF-8";
  std::string escaped;
  for (char c : path) {
    switch (c) {
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '&': escaped += "&amp;"; break;
      case '"': escaped += "&quot;"; break;
      default: escaped += c;
    }
  }
  r.body = "<!DOCTYPE html><html><head><title>Page Not Found</title></head><body>"
           "<h2>Page Not Found</h2><p>Sorry, " + escaped +
           " does not exist.</p></body></html>";
  return r;
}

Reply Reply::MethodNotAllowed(std::string_view method) {
  std::string details = "The HTTP method [";
  details.append(method);
  details += "] is not permitted for this endpoint";
  return Error(405, "Method not allowed", details);
}

std::string_view StatusReason(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 415: return "Unsupported Media Type";
    case 424: return "Failed Dependency";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    case 507: return "Insufficient Storage";
    default: return "Unknown";
  }
}

}  // namespace sundial::http
