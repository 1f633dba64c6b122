// Reply: a complete HTTP response, built by a handler.
//
// Error bodies follow OpenTSDB's shape (opentsdb-compat.md §3.6):
//   {"error":{"code":400,"message":"...","details":"..."}}
// with "details" present only when non-empty.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sundial/common/json_escape.h"

namespace sundial::http {

// The content type of every API response.
inline constexpr std::string_view kJsonContentType = "application/json; charset=UTF-8";

struct Reply {
  int status = 200;
  std::string content_type = std::string(kJsonContentType);  // "" = no header
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers
  std::string body;
  bool close = false;  // close the connection after this reply

  // 200 (or status) with a JSON body.
  static Reply Json(std::string body, int status = 200);
  // The OpenTSDB error body above.
  static Reply Error(int status, std::string_view message, std::string_view details = {});
  // 204 with no body (keeps the JSON content type, as OpenTSDB does).
  static Reply NoContent();
  // 404 {"error":{"code":404,"message":"Endpoint not found"}}.
  static Reply EndpointNotFound();
  // 404 with a small HTML page, for non-API paths.
  static Reply PageNotFound(std::string_view path);
  // 405 JSON "Method not allowed" with OpenTSDB's details text.
  static Reply MethodNotAllowed(std::string_view method);
};

// "OK", "Not Found", ... ("Unknown" for codes it does not know).
std::string_view StatusReason(int status);

}  // namespace sundial::http
