#include "sundial/http/router.h"

#include <cctype>

namespace sundial::http {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Non-empty path segments.
std::vector<std::string_view> Split(std::string_view path) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) out.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

void Router::Add(MethodSet methods, std::string_view path, Handler handler) {
  Route route;
  for (std::string_view seg : Split(path)) route.segments.push_back(Lower(seg));
  route.path = "/";
  for (size_t i = 0; i < route.segments.size(); ++i) {
    if (i > 0) route.path += '/';
    route.path += route.segments[i];
  }
  route.methods = methods;
  route.handler = std::move(handler);
  for (Route& r : routes_) {
    if (r.segments == route.segments) {
      r = std::move(route);
      return;
    }
  }
  routes_.push_back(std::move(route));
}

void Router::Dispatch(Request request, const ResponderPtr& responder) const noexcept {
  requests_.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::string_view> segs = Split(request.path);
  std::vector<std::string> lowered;
  lowered.reserve(segs.size());
  for (std::string_view s : segs) lowered.push_back(Lower(s));

  const bool is_api = !lowered.empty() && lowered[0] == "api";
  size_t skip = 0;  // index of a version segment to drop
  if (is_api) {
    request.api_version = 1;
    if (lowered.size() > 1 && lowered[1].size() > 1 && lowered[1][0] == 'v' &&
        std::isdigit(static_cast<unsigned char>(lowered[1][1]))) {
      const std::string_view digits = std::string_view(lowered[1]).substr(1);
      if (!AllDigits(digits) || digits.size() > 9) {
        responder->Send(Reply::Error(400, "Invalid API version format supplied"));
        return;
      }
      const int version = std::stoi(std::string(digits));
      if (version > 1) {
        responder->Send(Reply::Error(
            501, "Requested API version is greater than the max implemented",
            "API version [" + std::to_string(version) + "] is greater than the max [1]"));
        return;
      }
      skip = 1;
    }
  }
  // Request segments with the version dropped.
  std::vector<size_t> idx;
  for (size_t i = 0; i < lowered.size(); ++i) {
    if (skip != 0 && i == 1) continue;
    idx.push_back(i);
  }

  const Route* best = nullptr;
  for (const Route& r : routes_) {
    if (r.segments.size() > idx.size()) continue;
    if (r.segments.empty() && !idx.empty()) continue;  // "/" matches only itself
    if (best != nullptr && r.segments.size() <= best->segments.size()) continue;
    bool match = true;
    for (size_t k = 0; k < r.segments.size() && match; ++k) {
      match = r.segments[k] == lowered[idx[k]];
    }
    if (match) best = &r;
  }
  if (best == nullptr || (is_api && best->segments.size() < 2)) {
    responder->Send(is_api ? Reply::EndpointNotFound() : Reply::PageNotFound(request.path));
    return;
  }
  if (!best->methods.Contains(request.method)) {
    responder->Send(Reply::MethodNotAllowed(MethodName(request.method)));
    return;
  }
  request.route = best->path;
  for (size_t k = best->segments.size(); k < idx.size(); ++k) {
    if (!request.route_rest.empty()) request.route_rest += '/';
    request.route_rest.append(segs[idx[k]]);
  }
  best->handler(std::move(request), responder);
}

}  // namespace sundial::http
