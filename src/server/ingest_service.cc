#include "ingest_service.h"

namespace sundial::server {

namespace {
// Idle HTTP handlers kept; more concurrent requests than this just build
// (and drop) extra ones.
constexpr size_t kMaxIdleHttpHandlers = 16;
}  // namespace

IngestService::IngestService(const ingest::IngestOptions& options, storage::Storage* storage)
    : options_(options), rules_(options_), storage_(storage) {}

std::unique_ptr<ingest::TelnetPutHandler> IngestService::NewTelnetHandler() {
  return std::make_unique<ingest::TelnetPutHandler>(storage_, &options_, &rules_, &stats_);
}

std::unique_ptr<ingest::PointWriter> IngestService::NewWriter(ingest::Protocol protocol,
                                                             ingest::TagPolicy tag_policy,
                                                             ingest::NamePolicy name_policy) {
  return std::make_unique<ingest::PointWriter>(storage_, &options_, &rules_, &stats_, protocol,
                                               tag_policy, name_policy);
}

std::unique_ptr<ingest::HttpPutHandler> IngestService::AcquireHttpHandler() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::unique_ptr<ingest::HttpPutHandler> h = std::move(idle_.back());
      idle_.pop_back();
      return h;
    }
  }
  return std::make_unique<ingest::HttpPutHandler>(storage_, &options_, &rules_, &stats_);
}

void IngestService::Release(std::unique_ptr<ingest::HttpPutHandler> handler) {
  MutexLock lock(&mu_);
  if (idle_.size() < kMaxIdleHttpHandlers) idle_.push_back(std::move(handler));
}

std::unique_ptr<ingest::LineProtocolHandler> IngestService::NewLineProtocolHandler() {
  return std::make_unique<ingest::LineProtocolHandler>(storage_, &options_, &rules_, &stats_);
}

std::unique_ptr<ingest::LineProtocolHandler> IngestService::AcquireLineProtocolHandler() {
  {
    MutexLock lock(&mu_);
    if (!idle_influx_.empty()) {
      std::unique_ptr<ingest::LineProtocolHandler> h = std::move(idle_influx_.back());
      idle_influx_.pop_back();
      return h;
    }
  }
  return NewLineProtocolHandler();
}

void IngestService::Release(std::unique_ptr<ingest::LineProtocolHandler> handler) {
  MutexLock lock(&mu_);
  if (idle_influx_.size() < kMaxIdleHttpHandlers) idle_influx_.push_back(std::move(handler));
}

}  // namespace sundial::server
