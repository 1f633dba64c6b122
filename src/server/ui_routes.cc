// The built-in web page: GET / answers the page itself and GET /ui/<file>
// its scripts and style sheet, all embedded in the binary (ui_assets.h).
// Before the page existed, / answered the 404 HTML page; no API client
// asks for it, so serving the page there breaks none.
#include <string>

#include "routes.h"
#include "sundial/http/body_codec.h"
#include "ui_assets.h"

namespace sundial::server {

namespace {

using http::Method;
using http::Reply;
using http::Request;
using http::ResponderPtr;

constexpr std::string_view kIndexPath = "/ui/index.html";

void SendAsset(const ServiceContext& ctx, const Request& req, std::string_view path,
               const ResponderPtr& r) {
  const UiAsset* asset = FindUiAsset(path);
  if (asset == nullptr) {
    r->Send(Reply::PageNotFound(req.path));
    return;
  }
  const bool gzip_ok =
      ctx.options->http.gzip_responses && http::AcceptsGzip(req.headers.Get("Accept-Encoding"));
  r->Send(UiAssetReply(*asset, req.headers.Get("If-None-Match"), gzip_ok));
}

}  // namespace

void RegisterUiRoutes(ServiceContext* ctx, http::Router* router) {
  router->Add({Method::kGet}, "/", [ctx](Request req, ResponderPtr r) {
    SendAsset(*ctx, req, kIndexPath, r);
  });
  router->Add({Method::kGet}, "/ui", [ctx](Request req, ResponderPtr r) {
    if (req.route_rest.empty()) {
      SendAsset(*ctx, req, kIndexPath, r);
      return;
    }
    SendAsset(*ctx, req, "/ui/" + req.route_rest, r);
  });
}

}  // namespace sundial::server
