#include "ingest_service.h"

namespace sundial::server {

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
  std::unique_ptr<ingest::HttpPutHandler> h = http_pool_.Take();
  return h ? std::move(h)
           : std::make_unique<ingest::HttpPutHandler>(storage_, &options_, &rules_, &stats_);
}

void IngestService::Release(std::unique_ptr<ingest::HttpPutHandler> handler) {
  http_pool_.Give(std::move(handler));
}

std::unique_ptr<ingest::LineProtocolHandler> IngestService::NewLineProtocolHandler() {
  return std::make_unique<ingest::LineProtocolHandler>(storage_, &options_, &rules_, &stats_);
}

std::unique_ptr<ingest::LineProtocolHandler> IngestService::AcquireLineProtocolHandler() {
  std::unique_ptr<ingest::LineProtocolHandler> h = influx_pool_.Take();
  return h ? std::move(h) : NewLineProtocolHandler();
}

void IngestService::Release(std::unique_ptr<ingest::LineProtocolHandler> handler) {
  influx_pool_.Give(std::move(handler));
}

}  // namespace sundial::server
