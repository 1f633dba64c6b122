#include "sundial/http/router.h"

#include <cassert>
#include <cctype>

#include "sundial/common/ascii.h"

namespace sundial::http {

namespace {

// A registered route has at most this many segments, so a request's first
// kMaxRouteSegments + 1 segments (with an API version) decide its route.
constexpr size_t kMaxRouteSegments = 6;
constexpr size_t kMaxMatchSegments = kMaxRouteSegments + 1;

// Calls fn(segment) for each non-empty path segment, in order, until fn
// returns false.
template <typename Fn>
void ForEachSegment(std::string_view path, Fn fn) {
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i && !fn(path.substr(i, j - i))) return;
    i = j + 1;
  }
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The first non-empty segments of a path (at most kMaxMatchSegments), as
// views into it: matching needs no allocation.
struct PathSegments {
  explicit PathSegments(std::string_view path) {
    ForEachSegment(path, [this](std::string_view seg) {
      segs[size++] = seg;
      return size < kMaxMatchSegments;
    });
  }
  std::string_view segs[kMaxMatchSegments];
  size_t size = 0;
};

}  // namespace

void Router::Add(MethodSet methods, std::string_view path, Handler handler) {
  Route route;
  ForEachSegment(path, [&route](std::string_view seg) {
    route.segments.push_back(AsciiLower(seg));
    return true;
  });
  assert(route.segments.size() <= kMaxRouteSegments);
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

// The request's API version segment (index 1 of an API path), if any:
// true with *skip = 1 when it names v1; false when it was answered (400
// or 501).
bool Router::CheckApiVersion(std::string_view seg, const ResponderPtr& responder, size_t* skip) {
  if (seg.size() < 2 || AsciiLower(seg[0]) != 'v' ||
      !std::isdigit(static_cast<unsigned char>(seg[1]))) {
    return true;
  }
  const std::string_view digits = seg.substr(1);
  if (!AllDigits(digits) || digits.size() > 9) {
    responder->Send(Reply::Error(400, "Invalid API version format supplied"));
    return false;
  }
  int version = 0;
  for (char c : digits) version = version * 10 + (c - '0');
  if (version > 1) {
    responder->Send(Reply::Error(
        501, "Requested API version is greater than the max implemented",
        "API version [" + std::to_string(version) + "] is greater than the max [1]"));
    return false;
  }
  *skip = 1;
  return true;
}

bool Router::IsLiteralVersionRoute(std::string_view request_path) const {
  const PathSegments path(request_path);
  if (path.size < 2 || path.segs[1].size() < 2 || AsciiLower(path.segs[1][0]) != 'v') {
    return false;  // no version segment
  }
  for (const Route& r : routes_) {
    if (r.segments.size() < 2 || r.segments.size() > path.size || r.segments[0] != "api") {
      continue;
    }
    bool match = true;
    for (size_t k = 1; k < r.segments.size() && match; ++k) {
      match = EqualsNoCase(path.segs[k], r.segments[k]);
    }
    if (match) return true;
  }
  return false;
}

void Router::Dispatch(Request&& request, const ResponderPtr& responder) const noexcept {
  requests_.fetch_add(1, std::memory_order_relaxed);
  const PathSegments path(request.path);
  const bool is_api = path.size > 0 && EqualsNoCase(path.segs[0], "api");
  size_t skip = 0;  // 1: segment 1 is a version segment, left out of matching
  if (is_api) {
    request.api_version = 1;
    if (path.size > 1 && !IsLiteralVersionRoute(request.path) &&
        !CheckApiVersion(path.segs[1], responder, &skip)) {
      return;
    }
  }
  // The request's segments with the version left out: segs[Seg(k)].
  const size_t count = path.size - skip;
  auto seg = [&path, skip](size_t k) { return path.segs[k == 0 ? 0 : k + skip]; };

  const Route* best = nullptr;
  for (const Route& r : routes_) {
    if (r.segments.size() > count) continue;
    if (r.segments.empty() && count != 0) continue;  // "/" matches only itself
    if (best != nullptr && r.segments.size() <= best->segments.size()) continue;
    bool match = true;
    for (size_t k = 0; k < r.segments.size() && match; ++k) {
      match = EqualsNoCase(seg(k), r.segments[k]);
    }
    if (match) best = &r;
  }
  if (request.method == Method::kHead &&
      (best == nullptr || !best->methods.Contains(Method::kHead))) {
    // HEAD is served only where a route lists it; elsewhere the bare 405
    // (and close) that any method OpenTSDB does not know gets.
    Reply reply;
    reply.status = 405;
    reply.content_type.clear();
    reply.close = true;
    responder->Send(std::move(reply));
    return;
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
  if (!best->segments.empty()) {
    // The segments after the route's last one, wherever the path ends.
    const std::string_view last = seg(best->segments.size() - 1);
    const size_t after = static_cast<size_t>(last.data() + last.size() - request.path.data());
    ForEachSegment(std::string_view(request.path).substr(after), [&request](std::string_view s) {
      if (!request.route_rest.empty()) request.route_rest += '/';
      request.route_rest.append(s);
      return true;
    });
  }
  best->handler(std::move(request), responder);
}

}  // namespace sundial::http
