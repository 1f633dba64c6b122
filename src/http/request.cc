#include "sundial/http/request.h"

#include "ascii_util.h"

namespace sundial::http {

std::string_view MethodName(Method m) {
  switch (m) {
    case Method::kGet: return "GET";
    case Method::kPost: return "POST";
    case Method::kPut: return "PUT";
    case Method::kDelete: return "DELETE";
    case Method::kOptions: return "OPTIONS";
    case Method::kHead: return "HEAD";
  }
  return "GET";
}

const std::string* Headers::Find(std::string_view name) const {
  for (const auto& [k, v] : fields_) {
    if (EqualsNoCase(k, name)) return &v;
  }
  return nullptr;
}

std::string_view Headers::Get(std::string_view name) const {
  const std::string* v = Find(name);
  return v ? std::string_view(*v) : std::string_view();
}

bool QueryParams::Has(std::string_view key) const { return Find(key) != nullptr; }

const std::string* QueryParams::Find(std::string_view key) const {
  for (auto it = params_.rbegin(); it != params_.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

std::string_view QueryParams::Get(std::string_view key) const {
  const std::string* v = Find(key);
  return v ? std::string_view(*v) : std::string_view();
}

std::vector<std::string_view> QueryParams::GetAll(std::string_view key) const {
  std::vector<std::string_view> out;
  for (const auto& [k, v] : params_) {
    if (k == key) out.emplace_back(v);
  }
  return out;
}

}  // namespace sundial::http
