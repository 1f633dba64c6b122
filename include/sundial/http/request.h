// Request: one parsed HTTP request, as handlers see it.
//
// Everything is decoded before a handler runs: the path is percent-decoded,
// the query string is split into parameters (application/x-www-form-
// urlencoded rules, opentsdb-compat.md §3.3), and the body is de-chunked and
// inflated (gzip/deflate).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sundial::http {

// The methods OpenTSDB accepts at all (opentsdb-compat.md §3.2), and HEAD
// (for InfluxDB's HEAD /ping; routes that do not list it answer 405, and a
// reply to HEAD carries its headers only). Any other method is answered
// with a bare 405 before routing.
enum class Method : uint8_t { kGet = 0, kPost, kPut, kDelete, kOptions, kHead };

// "GET", "POST", ...
std::string_view MethodName(Method m);

// Header fields in arrival order. Names compare case-insensitively.
class Headers {
 public:
  void Add(std::string name, std::string value) {
    fields_.emplace_back(std::move(name), std::move(value));
  }
  // The value of the first field with this name, or nullptr.
  const std::string* Find(std::string_view name) const;
  // The value of the first field with this name, or "".
  std::string_view Get(std::string_view name) const;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }
  // For the parser, which builds fields in place as their bytes arrive.
  std::vector<std::pair<std::string, std::string>>* mutable_fields() { return &fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// Decoded query-string parameters in arrival order; repeated keys are kept.
// Keys compare exactly (case-sensitive), as in OpenTSDB.
class QueryParams {
 public:
  void Add(std::string key, std::string value) {
    params_.emplace_back(std::move(key), std::move(value));
  }
  // Presence-only flag test: true if the key occurs, whatever its value
  // (so "?arrays=false" is true, as in OpenTSDB).
  bool Has(std::string_view key) const;
  // The value of the LAST occurrence, or nullptr.
  const std::string* Find(std::string_view key) const;
  // The value of the last occurrence, or "".
  std::string_view Get(std::string_view key) const;
  // Every value of the key, in order.
  std::vector<std::string_view> GetAll(std::string_view key) const;
  const std::vector<std::pair<std::string, std::string>>& items() const { return params_; }
  size_t size() const { return params_.size(); }
  // For the decoder, which decodes keys and values in place.
  std::vector<std::pair<std::string, std::string>>* mutable_items() { return &params_; }

 private:
  std::vector<std::pair<std::string, std::string>> params_;
};

struct Request {
  Method method = Method::kGet;
  uint16_t http_major = 1;
  uint16_t http_minor = 1;
  std::string target;  // request-target as sent, e.g. "/api/query?m=sum:x"
  std::string path;    // percent-decoded path, e.g. "/api/query"
  QueryParams params;
  Headers headers;
  std::string body;    // de-chunked and inflated
  bool keep_alive = true;  // false: the connection closes after the reply

  // Set by the Router before the handler runs.
  int api_version = 0;     // 1 for /api/... and /api/v1/..., 0 otherwise
  std::string route;       // the registered path that matched, e.g. "/api/query"
  std::string route_rest;  // path segments after it, e.g. "last" or "jvm/x"
};

}  // namespace sundial::http
