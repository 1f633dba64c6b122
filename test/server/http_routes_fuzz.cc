// libFuzzer target: the whole HTTP request path below the socket. Arbitrary
// bytes go through request parsing (split into reads at many places), the
// server's real route table and the real handlers, over a real Storage in a
// temporary directory, with a query worker thread as in the server. Each
// request must get exactly one complete answer (or be dropped mid-stream,
// which the Responder contract allows) within a bounded time.
//
// The first byte picks the read size; the rest is the byte stream of one
// connection (several pipelined requests).
#include <stdio.h>
#include <stdlib.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "ingest_service.h"
#include "query_tracker.h"
#include "options.h"
#include "routes.h"
#include "service_context.h"
#include "sundial/common/mutex.h"
#include "sundial/http/request_parser.h"
#include "sundial/http/router.h"
#include "sundial/net/session.h"
#include "sundial/storage/storage.h"
#include "worker_pool.h"

namespace {

using namespace sundial;

// Records the answer; on_written callbacks run at once (an always-ready
// client). Safe from any thread.
class RecordingResponder : public http::Responder {
 public:
  void Send(http::Reply reply) override {
    MutexLock l(&mu_);
    if (reply.status < 100 || reply.status > 599) __builtin_trap();
    Answer();
  }
  void StartChunked(http::Reply) override {
    MutexLock l(&mu_);
    if (started_ || answers_ > 0) __builtin_trap();
    started_ = true;
  }
  void WriteChunk(std::string, std::function<void(bool)> on_written) override {
    {
      MutexLock l(&mu_);
      if (!started_) __builtin_trap();
    }
    if (on_written) on_written(true);
  }
  void Finish() override {
    MutexLock l(&mu_);
    if (!started_) __builtin_trap();
    Answer();
  }
  bool cancelled() const override { return false; }

  bool answered() const {
    MutexLock l(&mu_);
    return answers_ > 0;
  }

 private:
  void Answer() REQUIRES(mu_) {
    if (++answers_ > 1) __builtin_trap();  // answered twice
  }

  mutable Mutex mu_;
  int answers_ GUARDED_BY(mu_) = 0;
  bool started_ GUARDED_BY(mu_) = false;
};

// One server's worth of services, built once per fuzzing process.
struct Harness {
  Harness() {
    char tmpl[] = "/tmp/sundial-http-fuzz.XXXXXX";
    const char* dir = mkdtemp(tmpl);
    if (dir == nullptr) __builtin_trap();
    options = server::DefaultOptions();
    options.storage.data_dir = dir;
    options.storage.wal_sync = storage::WalSyncMode::kNone;
    options.query.threads = 1;
    if (!storage::Storage::Open(options.storage, &storage).ok()) __builtin_trap();
    ingest::IngestOptions io;
    io.max_tags = options.ingest.max_tags;
    io.auto_create_metrics = options.ingest.auto_create_metrics;
    ingest = std::make_unique<server::IngestService>(io, storage.get());
    env = NewPosixEnv();
    std::vector<std::string> warnings;
    if (!storage::MetaStore::Open(env.get(), dir, &meta, &warnings).ok()) __builtin_trap();
    annotations = std::make_unique<query::AnnotationStore>(meta.get());
    // An exception out of a handler is a bug even though the server
    // survives it (the pool logs it and the request is answered 500): stop
    // here.
    workers = std::make_unique<server::WorkerPool>(1, 0, [](const char* what) {
      fprintf(stderr, "a handler threw: %s\n", what);
      __builtin_trap();
    });
    ctx.options = &options;
    ctx.storage = storage.get();
    ctx.ingest = ingest.get();
    ctx.workers = workers.get();
    ctx.stats = &stats;
    ctx.connections = &connections;
    ctx.router = &router;
    ctx.meta = meta.get();
    ctx.annotations = annotations.get();
    ctx.queries = &queries;
    ctx.request_shutdown = [] {};
    server::RegisterRoutes(&ctx, &router);
  }

  server::Options options;
  std::unique_ptr<storage::Storage> storage;
  std::unique_ptr<server::IngestService> ingest;
  std::unique_ptr<Env> env;
  std::unique_ptr<storage::MetaStore> meta;
  std::unique_ptr<query::AnnotationStore> annotations;
  server::QueryTracker queries;
  std::unique_ptr<server::WorkerPool> workers;
  server::ServerStats stats;
  net::ConnectionManager connections{0};
  http::Router router;
  server::ServiceContext ctx;
};

Harness& GetHarness() {
  static Harness* h = new Harness();  // lives for the whole fuzzing process
  return *h;
}

// Waits until the handler answered or let go of the responder (a query that
// failed mid-stream drops it unfinished, which the contract allows).
void AwaitAnswer(const std::shared_ptr<RecordingResponder>& r) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (!r->answered() && r.use_count() > 1) {
    if (std::chrono::steady_clock::now() > deadline) __builtin_trap();  // hung
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  Harness& h = GetHarness();
  const size_t chunk = 1 + data[0] % 64;
  http::ParserLimits limits;
  limits.max_body_bytes = 1 << 16;
  http::RequestParser parser(limits);
  const char* p = reinterpret_cast<const char*>(data + 1);
  size_t left = size - 1;
  while (left > 0) {
    const size_t len = left < chunk ? left : chunk;
    size_t used = 0;
    http::Request request;
    const auto r = parser.Parse(p, len, &used, &request);
    if (used > len) __builtin_trap();
    if (r == http::RequestParser::Result::kError) return 0;
    if (r == http::RequestParser::Result::kRequest) {
      auto responder = std::make_shared<RecordingResponder>();
      h.router.Dispatch(std::move(request), responder);
      AwaitAnswer(responder);
    }
    p += used;
    left -= used;
    if (used == 0 && r != http::RequestParser::Result::kRequest) return 0;
  }
  return 0;
}
