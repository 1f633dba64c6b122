// A real HTTP server on 127.0.0.1 for the connection tests: HttpConnection
// serving a router's routes on one io_context that one thread runs (as
// HttpConnection requires), for at most run_for.
#pragma once

#include <chrono>
#include <memory>
#include <thread>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include "sundial/http/http_connection.h"
#include "sundial/http/router.h"
#include "sundial/net/session.h"

namespace sundial::http::testing {

class LoopbackServer {
 public:
  // router: borrowed, with every route added already; it must outlive this.
  LoopbackServer(const Router* router, HttpOptions options, std::chrono::seconds run_for)
      : router_(router),
        options_(options),
        acceptor_(ctx_, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
    Accept();
    thread_ = std::thread([this, run_for] { ctx_.run_for(run_for); });
  }
  // Stops every connection, then the I/O thread.
  ~LoopbackServer() {
    manager_.StopAll();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ctx_.stop();
    thread_.join();
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  uint16_t port() const { return acceptor_.local_endpoint().port(); }
  void StopConnections() { manager_.StopAll(); }
  size_t open_connections() const { return manager_.size(); }

 private:
  void Accept() {
    acceptor_.async_accept([this](const std::error_code& ec, asio::ip::tcp::socket s) {
      if (ec) return;
      std::make_shared<HttpConnection>(std::move(s), router_, options_, &manager_)->Start("");
      Accept();
    });
  }

  const Router* const router_;
  const HttpOptions options_;
  net::ConnectionManager manager_{0};
  asio::io_context ctx_{1};
  asio::ip::tcp::acceptor acceptor_;
  std::thread thread_;
};

}  // namespace sundial::http::testing
