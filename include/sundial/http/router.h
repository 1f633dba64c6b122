// Router: maps (method, path) to a handler, with OpenTSDB's API routing
// rules (opentsdb-compat.md §3.1, §3.2, §7).
//
// Path rules for a request:
//  * Split on '/', empty segments dropped (so trailing and doubled slashes
//    are ignored).
//  * A first segment "api" (any case) makes an API call. An optional
//    "v<digits>" segment may follow: v1 is the default, a higher version is
//    answered 501, "v" followed by a non-number 400.
//  * Route matching is case-insensitive on every segment. The longest
//    registered route that is a prefix of the request's segments wins; the
//    segments after it are in Request::route_rest (e.g. "/api/stats/jvm"
//    reaches the "/api/stats" route with route_rest "jvm", unless
//    "/api/stats/jvm" is registered itself).
//  * No match: an API path gets 404 {"error":{"code":404,"message":"Endpoint
//    not found"}}, any other path 404 with a small HTML page.
//  * A matched route that does not allow the method: 405 JSON with
//    "The HTTP method [X] is not permitted for this endpoint".
//
// Thread-safety: Add() only before the server starts; Dispatch() from any
// number of threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/http/request.h"
#include "sundial/http/responder.h"

namespace sundial::http {

// A set of methods, e.g. MethodSet{Method::kGet, Method::kPost}.
class MethodSet {
 public:
  constexpr MethodSet() = default;
  constexpr MethodSet(std::initializer_list<Method> methods) {
    for (Method m : methods) bits_ |= Bit(m);
  }
  constexpr bool Contains(Method m) const { return (bits_ & Bit(m)) != 0; }

 private:
  static constexpr uint8_t Bit(Method m) { return static_cast<uint8_t>(1u << static_cast<int>(m)); }
  uint8_t bits_ = 0;
};

// A handler gets the request by value (it owns it: move out what it needs)
// and answers through the responder, now or later. It runs on the
// connection's I/O thread, so it must not block: long work goes to the
// worker pool. REQUIRES: eventually answers through the responder, and
// reports every error that way: a handler never throws (an escaping
// exception ends the process, see Router::Dispatch).
using Handler = std::function<void(Request request, ResponderPtr responder)>;

class Router {
 public:
  Router() = default;
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  // Registers a route, e.g. Add({Method::kGet}, "/api/version", h). The
  // path is written in its canonical form: "/api/<endpoint>[/<sub>...]" for
  // API routes (no version segment), "/<page>" for others. Registering the
  // same path twice replaces the handler. REQUIRES: at most 6 segments.
  void Add(MethodSet methods, std::string_view path, Handler handler);

  // Routes the request: fills its api_version, route and route_rest and
  // calls the handler, or answers the routing error itself. Matching
  // allocates nothing (path segments are compared in place). noexcept: a
  // handler that throws (a broken contract, like a failed assert) ends the
  // process here rather than unwinding through the I/O loop.
  void Dispatch(Request&& request, const ResponderPtr& responder) const noexcept;

  // Requests dispatched so far (for stats).
  uint64_t requests() const { return requests_.load(std::memory_order_relaxed); }

 private:
  struct Route {
    std::vector<std::string> segments;  // lower-case
    std::string path;
    MethodSet methods;
    Handler handler;
  };

  // True if the path matches a route that was added with a literal version
  // segment (e.g. /api/v2/write, InfluxDB's): that segment is then part of
  // the path, not an OpenTSDB API version.
  bool IsLiteralVersionRoute(std::string_view request_path) const;
  static bool CheckApiVersion(std::string_view seg, const ResponderPtr& responder, size_t* skip);

  std::vector<Route> routes_;
  mutable std::atomic<uint64_t> requests_{0};
};

}  // namespace sundial::http
