#include "graphite_server.h"

#include <spdlog/spdlog.h>

#include "sundial/ingest/graphite_handler.h"
#include "wall_clock.h"

namespace sundial::server {

namespace {

// The lines of one Graphite connection.
class GraphiteSession : public net::LineHandler {
 public:
  GraphiteSession(GraphiteServer* server, std::unique_ptr<ingest::GraphiteHandler> handler)
      : server_(server), handler_(std::move(handler)) {}

  Action HandleLines(std::string_view lines, net::ReplyBuffer* /*reply*/,
                     size_t* consumed) override {
    *consumed = lines.size();
    ingest::GraphiteOutcome out;
    handler_->HandleLines(lines, NowMs(), &out);
    if (out.rejected > 0) server_->NoteBadLines(out.rejected, out.first_error);
    if (!out.storage_status.ok()) {
      spdlog::error("graphite: storage refused points: {}", out.storage_status.ToString());
    }
    return Action::kContinue;
  }

 private:
  GraphiteServer* const server_;
  const std::unique_ptr<ingest::GraphiteHandler> handler_;
};

// A connection while storage is not open: lines are read and dropped.
class DiscardSession : public net::LineHandler {
 public:
  Action HandleLines(std::string_view lines, net::ReplyBuffer*, size_t* consumed) override {
    *consumed = lines.size();
    return Action::kContinue;
  }
};

}  // namespace

net::ListenerOptions GraphiteServer::MakeListenerOptions(const Options& options) {
  net::ListenerOptions l = options.listener;
  l.port = options.graphite.port;
  if (!options.graphite.bind.empty()) l.bind_address = options.graphite.bind;
  return l;
}

GraphiteServer::GraphiteServer(const Options& options, IngestService* ingest,
                               net::IoContextPool* pool, net::ConnectionManager* connections)
    : ingest_(ingest),
      line_options_(options.line),
      connections_(connections),
      listener_(MakeListenerOptions(options), pool, connections, this) {}

Status GraphiteServer::Start() { return listener_.Start(); }

void GraphiteServer::Stop() { listener_.Stop(); }

void GraphiteServer::StartSession(net::Protocol /*protocol*/, asio::ip::tcp::socket socket,
                                  std::string_view first_bytes) {
  std::unique_ptr<net::LineHandler> handler;
  if (ingest_->storage() != nullptr) {
    handler = std::make_unique<GraphiteSession>(
        this, std::make_unique<ingest::GraphiteHandler>(ingest_->storage(), &ingest_->options(),
                                                        &ingest_->rules(), ingest_->stats()));
  } else {
    handler = std::make_unique<DiscardSession>();
  }
  auto conn = std::make_shared<net::LineConnection>(std::move(socket), std::move(handler),
                                                    line_options_, connections_);
  conn->Start(first_bytes);
}

void GraphiteServer::NoteBadLines(size_t count, std::string_view first_error) {
  unlogged_bad_lines_.fetch_add(count, std::memory_order_relaxed);
  const int64_t now = NowMs();
  int64_t last = last_log_ms_.load(std::memory_order_relaxed);
  const int64_t interval =
      std::chrono::duration_cast<std::chrono::milliseconds>(kLogInterval).count();
  if (now - last < interval || !last_log_ms_.compare_exchange_strong(last, now)) return;
  const uint64_t n = unlogged_bad_lines_.exchange(0, std::memory_order_relaxed);
  spdlog::warn("graphite: {} bad lines since the last report; the latest: {}", n, first_error);
}

}  // namespace sundial::server
