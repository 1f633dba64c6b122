// Where `sundial import` sends points: a running server over its telnet
// port, or a stopped server's data directory opened directly.
//
// Both take batches of put lines and say exactly which lines were
// rejected and why, with the server's own texts:
//  * RemoteTarget sends a batch followed by a `help` command on one
//    connection. The one-line `help` reply is a barrier: any error line
//    before it belongs to the batch. Error lines are tied to their put
//    lines without sending anything twice: a PutLineChecker runs the batch
//    through the server's own parser and rules, and when its errors are
//    exactly the server's, in order, they name the lines. Only when they
//    are not (the server rejects for a reason the checker cannot see: a
//    metric unknown with auto_create_metrics off, other ingest options)
//    is the batch sent again with a barrier after every line; then its
//    accepted lines are written a second time, with the same values.
//    A "put: HBase error:" line means storage refused the write (read-only,
//    disk full): the batch is sent again after a pause, at most
//    RemoteOptions::refusal_retries times, then Send() fails with
//    Unavailable and the import stops.
//  * LocalTarget takes the data directory's lock (so it refuses while a
//    server runs there), opens the storage engine and the rollup store with
//    the server's options, and runs every line through the same
//    ingest::TelnetPutHandler that a telnet connection uses.
//
// Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "options.h"
#include "sundial/common/status.h"
#include "sundial/ingest/ingest_options.h"

namespace sundial::server {

// Put lines ("put ...\n") bound for a target.
class PutBatch {
 public:
  void Add(std::string_view put_line) {
    text_.append(put_line);
    text_.push_back('\n');
    ends_.push_back(text_.size());
  }
  void Clear() {
    text_.clear();
    ends_.clear();
  }
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }
  size_t bytes() const { return text_.size(); }
  const std::string& text() const { return text_; }
  // Line i with its "\n".
  std::string_view line(size_t i) const {
    const size_t b = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(text_).substr(b, ends_[i] - b);
  }

 private:
  std::string text_;
  std::vector<size_t> ends_;
};

struct Rejection {
  size_t index = 0;    // line of the batch
  std::string reason;  // the server's reply line, without "\n"
};

class PutTarget {
 public:
  virtual ~PutTarget() = default;
  // Stores the batch. On OK every line was either stored or is listed in
  // *rejected. An error means the target failed (connection lost, storage
  // refused): lines of this batch may or may not be stored.
  virtual Status Send(const PutBatch& batch, std::vector<Rejection>* rejected) = 0;
  // Makes everything sent durable (local: sync and close the engine).
  virtual Status Finish() = 0;
};

struct RemoteOptions {
  // The rules the PutLineChecker applies (the importer's --config and
  // --ingest-* flags; they should match the server's).
  ingest::IngestOptions ingest;
  // Sends of a batch that storage refused, after the first; the pause
  // before retry k (0-based) is refusal_backoff * 2^k.
  uint32_t refusal_retries = 4;
  std::chrono::milliseconds refusal_backoff{500};
};

// Connects to url's host and port (the telnet and HTTP port).
Status NewRemoteTarget(const std::string& url, const RemoteOptions& options,
                       std::unique_ptr<PutTarget>* out);

// Opens options.storage.data_dir. Busy if a server holds the lock.
Status NewLocalTarget(const Options& options, std::unique_ptr<PutTarget>* out);

}  // namespace sundial::server
