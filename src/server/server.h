// Server: owns everything a running sundiald has, in start-up order: the
// data-directory lock, storage, the query worker pool, the I/O thread pool,
// the router and the listener; and handles signals.
//
// Lifecycle: Start() (fails cleanly, nothing left running), then Run() in
// the main thread until SIGTERM/SIGINT or RequestShutdown(), which stops
// accepting, closes every connection, stops the threads and closes storage.
// SIGHUP re-opens the log file.
//
// Under systemd (Type=notify, see sd_notify.h) Start() reports STATUS= while
// it recovers and READY=1 once the WAL is replayed, the index loaded and the
// listener accepting; Stop() reports STOPPING=1. With WatchdogSec= a
// Watchdog thread sends WATCHDOG=1 while the I/O threads answer.
//
// Thread-safety: Start() and Run() from one thread; RequestShutdown() from
// any thread.
#pragma once

#include <memory>

#include <asio/io_context.hpp>
#include <asio/signal_set.hpp>

#include "data_dir_lock.h"
#include "graphite_server.h"
#include "ingest_service.h"
#include "late_observers.h"
#include "options.h"
#include "put_line_sink.h"
#include "remote_write_service.h"
#include "query_tracker.h"
#include "sd_notify.h"
#include "service_context.h"
#include "sundial/http/router.h"
#include "sundial/net/io_context_pool.h"
#include "sundial/net/listener.h"
#include "sundial/net/session.h"
#include "watchdog.h"
#include "worker_pool.h"

namespace sundial::server {

class Server : private net::SessionFactory {
 public:
  explicit Server(const Options& options);
  ~Server() override;

  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  Status Start();
  // Blocks until shutdown is requested, then stops everything.
  void Run();
  // Asks Run() to return. Safe from any thread, including I/O threads.
  void RequestShutdown();

  // The port actually bound (after Start()).
  uint16_t port() const { return listener_ ? listener_->port() : 0; }

 private:
  void StartSession(net::Protocol protocol, asio::ip::tcp::socket socket,
                    std::string_view first_bytes) override;
  // Opens the rollup store (if enabled) and adds it to the storage's
  // late-point observers.
  Status OpenRollups();
  // Opens the relay (if relay.targets is set) and loads its positions.
  Status OpenRelay();
  void WaitForSignal();
  void Stop();
  // Sends a notify message; a failure is logged, never fatal.
  void Notify(std::string_view state) const;

  const Options options_;
  const SdNotifier notifier_;
  DataDirLock lock_;
  // Both outlive storage_: they are its late-point observers.
  std::unique_ptr<rollup::RollupStore> rollups_;
  std::unique_ptr<query::BucketCache> cache_;  // null when query.cache_size is 0
  LateObservers late_observers_;
  // Outlive storage_: the relay decides which WAL segments it keeps.
  std::unique_ptr<Env> relay_env_;
  std::unique_ptr<relay::Relay> relay_;  // null without relay.targets
  std::unique_ptr<storage::Storage> storage_;
  // Annotations and uid/ts meta (meta.log in the data dir).
  std::unique_ptr<Env> meta_env_;
  std::unique_ptr<storage::MetaStore> meta_;
  std::unique_ptr<query::AnnotationStore> annotations_;
  QueryTracker queries_;
  std::unique_ptr<IngestService> ingest_;
  std::unique_ptr<RemoteWriteService> remote_write_;
  std::unique_ptr<WorkerPool> workers_;
  ServerStats stats_;
  ServiceContext ctx_;
  net::ConnectionManager connections_;
  http::Router router_;
  std::unique_ptr<PutLineSinkFactory> put_factory_;
  std::unique_ptr<net::IoContextPool> io_pool_;
  std::unique_ptr<net::Listener> listener_;
  std::unique_ptr<GraphiteServer> graphite_;  // null when graphite.port is 0
  std::unique_ptr<Watchdog> watchdog_;  // null without WatchdogSec=

  asio::io_context control_;  // signals and shutdown requests, run by Run()
  asio::signal_set signals_;
  bool stopped_ = false;
};

}  // namespace sundial::server
