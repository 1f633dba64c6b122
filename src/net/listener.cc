#include "sundial/net/listener.h"

#include <string>

#include <asio/read.hpp>
#include <asio/steady_timer.hpp>

namespace sundial::net {

bool DetectProtocol(std::string_view b, Protocol* protocol) {
  static constexpr std::string_view kMethods[] = {"GET",     "HEAD",  "POST",  "PUT",    "DELETE",
                                                  "OPTIONS", "PATCH", "TRACE", "CONNECT"};
  *protocol = Protocol::kLine;
  if (b.empty() || b[0] < 'A' || b[0] > 'Z') return true;  // the common telnet case
  bool may_grow = false;
  for (std::string_view m : kMethods) {
    if (b.size() <= m.size()) {  // still a prefix of the method?
      may_grow |= m.substr(0, b.size()) == b;
      continue;
    }
    if (b.substr(0, m.size()) != m || b[m.size()] != ' ') continue;
    if (b.size() == m.size() + 1) return false;  // the target's first byte is missing
    const char t = b[m.size() + 1];
    if (t == '/' || t == '*') *protocol = Protocol::kHttp;
    return true;
  }
  return !may_grow;
}

namespace {

// A connection whose first bytes have not arrived yet. It counts against the
// connection limits, is idle (may be evicted for a newer connection), and is
// closed on Stop() or idle timeout.
class Sniffer : public Session, public std::enable_shared_from_this<Sniffer> {
 public:
  Sniffer(asio::ip::tcp::socket socket, size_t read_size, ConnectionManager* manager,
          SessionFactory* factory)
      : socket_(std::move(socket)),
        buf_(read_size, '\0'),
        manager_(manager),
        factory_(factory),
        timer_(socket_.get_executor()) {}
  ~Sniffer() override { manager_->Remove(this); }

  void Start(std::chrono::milliseconds idle_timeout) {
    MarkIdle();
    auto self = shared_from_this();
    if (idle_timeout.count() > 0) {
      timer_.expires_after(idle_timeout);
      timer_.async_wait([self](const std::error_code& ec) {
        if (!ec) self->Close();
      });
    }
    socket_.async_read_some(asio::buffer(buf_),
                            [self](const std::error_code& ec, size_t n) { self->OnRead(ec, n); });
  }

  asio::any_io_executor executor() { return socket_.get_executor(); }

  void Stop() override {
    auto self = shared_from_this();
    asio::post(socket_.get_executor(), [self] { self->Close(); });
  }

 private:
  void OnRead(const std::error_code& ec, size_t n) {
    if (ec || n == 0 || !socket_.is_open()) {
      Close();
      return;
    }
    received_ += n;
    Protocol protocol;
    if (!DetectProtocol(std::string_view(buf_.data(), received_), &protocol) &&
        received_ < buf_.size()) {
      // A prefix of "METHOD /": read on (the idle timer keeps running).
      auto self = shared_from_this();
      socket_.async_read_some(
          asio::buffer(&buf_[received_], buf_.size() - received_),
          [self](const std::error_code& read_ec, size_t m) { self->OnRead(read_ec, m); });
      return;
    }
    timer_.cancel();
    // Unregister first so the new session takes over the slot.
    manager_->Remove(this);
    factory_->StartSession(protocol, std::move(socket_),
                           std::string_view(buf_.data(), received_));
  }

  void Close() {
    std::error_code ignored;
    timer_.cancel();
    socket_.close(ignored);
  }

  asio::ip::tcp::socket socket_;
  std::string buf_;
  size_t received_ = 0;  // bytes of buf_ filled
  ConnectionManager* const manager_;
  SessionFactory* const factory_;
  asio::steady_timer timer_;
};

}  // namespace

Listener::Listener(const ListenerOptions& options, IoContextPool* pool,
                   ConnectionManager* manager, SessionFactory* factory)
    : options_(options),
      pool_(pool),
      manager_(manager),
      factory_(factory),
      acceptor_(pool->context(0)),
      retry_timer_(pool->context(0)) {}

Listener::~Listener() { Stop(); }

Status Listener::Start() {
  SUNDIAL_RETURN_IF_ERROR(Bind());
  DoAccept();
  return Status::OK();
}

Status Listener::Bind() {
  MutexLock lock(&mu_);
  std::error_code ec;
  const asio::ip::address addr = asio::ip::make_address(options_.bind_address, ec);
  if (ec) return Status::InvalidArgument("bad bind address", options_.bind_address);
  const asio::ip::tcp::endpoint endpoint(addr, options_.port);
  const std::string where = options_.bind_address + ":" + std::to_string(options_.port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    std::error_code ignored;
    acceptor_.close(ignored);
    return Status::IOError("cannot listen on " + where, ec.message());
  }
  port_ = acceptor_.local_endpoint(ec).port();
  return Status::OK();
}

void Listener::Stop() {
  MutexLock lock(&mu_);
  std::error_code ignored;
  acceptor_.close(ignored);
  retry_timer_.cancel();
}

void Listener::DoAccept() {
  MutexLock lock(&mu_);
  if (!acceptor_.is_open()) return;
  asio::io_context& ctx = pool_->Next();
  acceptor_.async_accept(ctx, [this](const std::error_code& ec, asio::ip::tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      std::error_code ignored;
      socket.set_option(asio::ip::tcp::no_delay(true), ignored);
      std::error_code peer_ec;
      const asio::ip::address peer = socket.remote_endpoint(peer_ec).address();
      auto sniffer = std::make_shared<Sniffer>(std::move(socket), options_.first_read_size,
                                               manager_, factory_);
      if (!peer_ec && manager_->Add(sniffer, peer, /*enforce_limit=*/true) ==
                          ConnectionManager::AddResult::kAdded) {
        // Start on the socket's own context (it may differ from this one).
        asio::post(sniffer->executor(), [sniffer, t = options_.idle_timeout] {
          sniffer->Start(t);
        });
      }
      // Otherwise over a limit (or already gone): the sniffer dies here and
      // closes the socket.
      DoAccept();
      return;
    }
    // Accept failed (e.g. out of file descriptors): retry a little later
    // rather than spinning on the error.
    MutexLock lock(&mu_);
    retry_timer_.expires_after(std::chrono::milliseconds(100));
    retry_timer_.async_wait([this](const std::error_code& wait_ec) {
      if (!wait_ec) DoAccept();
    });
  });
}

}  // namespace sundial::net
