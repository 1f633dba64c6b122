// RemoteWriteService: the Prometheus remote_write endpoint's state in a
// running server: the name rules of the protocol and a pool of handlers.
//
// Why a pool: like /api/put handlers, remote_write handlers keep a series
// cache and a decompression buffer worth reusing across requests, and
// routes carry no connection identity. A request borrows a handler (a mutex
// per request, not per sample) and gives it back.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <memory>
#include <vector>

#include "ingest_service.h"
#include "sundial/common/mutex.h"
#include "sundial/ingest/remote_write_handler.h"

namespace sundial::server {

class RemoteWriteService {
 public:
  // ingest is borrowed and must outlive the service.
  explicit RemoteWriteService(IngestService* ingest);
  RemoteWriteService(const RemoteWriteService&) = delete;
  RemoteWriteService& operator=(const RemoteWriteService&) = delete;

  // REQUIRES: ingest->storage() != nullptr.
  std::unique_ptr<ingest::RemoteWriteHandler> Acquire();
  void Release(std::unique_ptr<ingest::RemoteWriteHandler> handler);

 private:
  IngestService* const ingest_;
  Mutex mu_;
  std::vector<std::unique_ptr<ingest::RemoteWriteHandler>> idle_ GUARDED_BY(mu_);
};

}  // namespace sundial::server
