#include "server.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <asio/post.hpp>
#include <spdlog/spdlog.h>

#include "logging.h"
#include "routes.h"
#include "sundial/http/http_connection.h"
#include "sundial/net/line_connection.h"
#include "telnet_session.h"

namespace sundial::server {

namespace {

// How long shutdown waits for connections to finish closing.
constexpr std::chrono::milliseconds kCloseWait{3000};

// The I/O threads' busy polling: off with one CPU online, where a spinning
// thread would only delay the thread or client it is waiting for.
std::chrono::microseconds BusyPoll(uint32_t us) {
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  return std::chrono::microseconds(cpus > 1 ? us : 0);
}

}  // namespace

Server::Server(const Options& options)
    : options_(options),
      notifier_(SdNotifier::FromEnvironment()),
      connections_(net::ConnectionLimits{options.max_connections,
                                         options.max_connections_per_address}),
      signals_(control_, SIGINT, SIGTERM, SIGHUP) {}

Server::~Server() { Stop(); }

Status Server::Start() {
  stats_.start_time_s = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  SUNDIAL_RETURN_IF_ERROR(lock_.Acquire(options_.storage.data_dir));
  storage::StorageOptions storage_options = options_.storage;
  SUNDIAL_RETURN_IF_ERROR(OpenRollups());
  if (options_.query.cache_bytes > 0) {
    cache_ = std::make_unique<query::BucketCache>(options_.query.cache_bytes);
    late_observers_.Add(cache_.get());
  }
  if (!late_observers_.empty()) storage_options.late_observer = &late_observers_;
  SUNDIAL_RETURN_IF_ERROR(OpenRelay());
  if (relay_) storage_options.wal_retention = relay_.get();
  Notify("STATUS=Loading the index and replaying the write-ahead log in " +
         options_.storage.data_dir);
  SUNDIAL_RETURN_IF_ERROR(storage::Storage::Open(storage_options, &storage_));
  if (rollups_) rollups_->Start(storage_.get());
  if (relay_) SUNDIAL_RETURN_IF_ERROR(relay_->Start(storage_.get()));
  const std::vector<std::string> warnings = storage_->recovery_warnings();
  for (const std::string& warning : warnings) spdlog::warn("recovery: {}", warning);
  if (const storage::StorageHealth h = storage_->health(); h.read_only) {
    spdlog::error("storage is read-only: queries are served, writes refused ({})", h.reason);
  }
  meta_env_ = NewPosixEnv();
  std::vector<std::string> meta_warnings;
  const Status meta_status = storage::MetaStore::Open(meta_env_.get(), options_.storage.data_dir,
                                                     &meta_, &meta_warnings,
                                                     options_.meta_max_bytes);
  for (const std::string& warning : meta_warnings) spdlog::warn("recovery: {}", warning);
  if (meta_status.ok()) {
    annotations_ = std::make_unique<query::AnnotationStore>(meta_.get());
  } else {
    // Data is served without them: annotation and meta endpoints answer 503.
    spdlog::error("annotations and meta data unavailable: {}", meta_status.ToString());
  }
  Notify("STATUS=Recovered (" + std::to_string(warnings.size()) +
         " warnings); starting the listener");
  ingest::IngestOptions ingest_options;
  ingest_options.max_tags = options_.ingest.max_tags;
  ingest_options.auto_create_metrics = options_.ingest.auto_create_metrics;
  ingest_options.allow_specialchars = options_.ingest.allow_specialchars;
  ingest_options.influx_separator = options_.ingest.influx_separator;
  ingest_ = std::make_unique<IngestService>(ingest_options, storage_.get());
  remote_write_ = std::make_unique<RemoteWriteService>(ingest_.get());

  workers_ = std::make_unique<WorkerPool>(options_.query.threads, options_.query.spare_threads);
  ctx_.options = &options_;
  ctx_.storage = storage_.get();
  ctx_.rollups = rollups_.get();
  ctx_.cache = cache_.get();
  ctx_.relay = relay_.get();
  ctx_.ingest = ingest_.get();
  ctx_.remote_write = remote_write_.get();
  ctx_.workers = workers_.get();
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  ctx_.query_helpers = std::min<size_t>(options_.query.threads, cores) - 1;
  ctx_.stats = &stats_;
  ctx_.connections = &connections_;
  ctx_.router = &router_;
  ctx_.meta = meta_.get();
  ctx_.annotations = annotations_.get();
  ctx_.queries = &queries_;
  ctx_.request_shutdown = [this] { RequestShutdown(); };

  RegisterRoutes(&ctx_, &router_);
  put_factory_ = NewPutLineSinkFactory(&ctx_);

  io_pool_ = std::make_unique<net::IoContextPool>(
      options_.io_threads, BusyPoll(options_.io_busy_poll_us), [](const char* what) {
        spdlog::error("an I/O handler failed ({}); its connection was closed", what);
      });
  // The main port opens last: once it accepts, every other listener does
  // too (clients and supervisors take the main port as the sign of ready).
  if (options_.graphite.port != 0) {
    graphite_ = std::make_unique<GraphiteServer>(options_, ingest_.get(), io_pool_.get(),
                                                 &connections_);
    SUNDIAL_RETURN_IF_ERROR(graphite_->Start());
    spdlog::info("graphite plaintext listener on port {}", graphite_->port());
  }
  listener_ = std::make_unique<net::Listener>(options_.listener, io_pool_.get(), &connections_,
                                              static_cast<net::SessionFactory*>(this));
  SUNDIAL_RETURN_IF_ERROR(listener_->Start());
  io_pool_->Start();
  spdlog::info("sundiald listening on {}:{} ({} I/O threads, {} query threads), data dir {}",
               options_.listener.bind_address, listener_->port(), io_pool_->size(),
               workers_->size(), options_.storage.data_dir);
  Notify("READY=1\nSTATUS=Serving on " + options_.listener.bind_address + ":" +
         std::to_string(listener_->port()));
  if (notifier_.enabled() && notifier_.watchdog_timeout().count() > 0) {
    watchdog_ = std::make_unique<Watchdog>(&notifier_, io_pool_.get(),
                                           notifier_.watchdog_timeout() / 2);
    watchdog_->Start();
  }
  return Status::OK();
}

Status Server::OpenRollups() {
  const std::string dir = options_.storage.data_dir + "/rollup";
  if (!options_.rollup.enabled) {
    // Late points are not tracked while rollups are off: forget what was
    // built, so that turning them on again rebuilds from the raw data.
    return rollup::RollupStore::Invalidate(dir);
  }
  rollup::RollupOptions ro = options_.rollup.store;
  ro.dir = dir;
  ro.retention_ms = options_.storage.retention_ms;
  SUNDIAL_RETURN_IF_ERROR(rollup::RollupStore::Open(ro, &rollups_));
  late_observers_.Add(rollups_.get());
  return Status::OK();
}

Status Server::OpenRelay() {
  if (options_.relay.targets.empty()) return Status::OK();
  relay::RelayOptions ro = options_.relay;
  ro.dir = options_.storage.data_dir + "/relay";
  ro.log = [](relay::LogLevel level, const std::string& msg) {
    if (level == relay::LogLevel::kError) {
      spdlog::error("{}", msg);
    } else if (level == relay::LogLevel::kWarn) {
      spdlog::warn("{}", msg);
    } else {
      spdlog::info("{}", msg);
    }
  };
  relay_env_ = NewPosixEnv();
  SUNDIAL_RETURN_IF_ERROR(relay::Relay::Open(ro, relay_env_.get(), &relay_));
  for (const relay::TargetSpec& t : ro.targets) spdlog::info("relay target {}", t.display);
  return Status::OK();
}

void Server::StartSession(net::Protocol protocol, asio::ip::tcp::socket socket,
                          std::string_view first_bytes) {
  if (protocol == net::Protocol::kLine) {
    auto handler = std::make_unique<TelnetSession>(&ctx_, put_factory_->NewSink());
    auto conn = std::make_shared<net::LineConnection>(std::move(socket), std::move(handler),
                                                      options_.line, &connections_);
    conn->Start(first_bytes);
  } else {
    auto conn = std::make_shared<http::HttpConnection>(std::move(socket), &router_,
                                                       options_.http, &connections_);
    conn->Start(first_bytes);
  }
}

void Server::Run() {
  WaitForSignal();
  control_.run();
  Stop();
}

void Server::WaitForSignal() {
  signals_.async_wait([this](const std::error_code& ec, int signo) {
    if (ec) return;
    if (signo == SIGHUP) {
      ReopenLogFile(options_.log);
      WaitForSignal();
      return;
    }
    spdlog::info("signal {} received, shutting down", signo);
    control_.stop();
  });
}

void Server::RequestShutdown() {
  asio::post(control_, [this] { control_.stop(); });
}

void Server::Stop() {
  if (stopped_ || !io_pool_) return;  // never started
  stopped_ = true;
  Notify("STOPPING=1\nSTATUS=Shutting down");
  if (watchdog_) watchdog_->Stop();
  if (listener_) listener_->Stop();
  if (graphite_) graphite_->Stop();
  connections_.StopAll();
  // Give connections a moment to close (and to flush what they received).
  const auto deadline = std::chrono::steady_clock::now() + kCloseWait;
  while (connections_.size() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  io_pool_->Stop();
  io_pool_->Join();
  if (workers_) workers_->Stop();
  if (rollups_) rollups_->Stop();
  if (relay_) relay_->Stop();  // persists positions before storage keeps the WAL they need
  storage_.reset();  // seals and syncs
  rollups_.reset();
  spdlog::info("sundiald stopped");
  spdlog::default_logger()->flush();
}

void Server::Notify(std::string_view state) const {
  const Status s = notifier_.Notify(state);
  if (!s.ok()) spdlog::warn("systemd notify: {}", s.ToString());
}

}  // namespace sundial::server
