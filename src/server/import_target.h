// Where `sundial import` sends points: a running server over its telnet
// port, or a stopped server's data directory opened directly.
//
// Both take batches of put lines and say exactly which lines were
// rejected and why, with the server's own texts:
//  * RemoteTarget sends a batch followed by a `help` command on one
//    connection. The one-line `help` reply is a barrier: any error line
//    before it belongs to the batch. If there is one, the batch is sent
//    again with a barrier after every line, which ties each error line to
//    its put line. Resending is harmless: the lines that were accepted
//    write the same values at the same timestamps again (last write wins).
//  * LocalTarget takes the data directory's lock (so it refuses while a
//    server runs there), opens the storage engine and the rollup store with
//    the server's options, and runs every line through the same
//    ingest::TelnetPutHandler that a telnet connection uses.
//
// Thread-safety: one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "options.h"
#include "sundial/common/status.h"

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

// Connects to url's host and port (the telnet and HTTP port).
Status NewRemoteTarget(const std::string& url, std::unique_ptr<PutTarget>* out);

// Opens options.storage.data_dir. Busy if a server holds the lock.
Status NewLocalTarget(const Options& options, std::unique_ptr<PutTarget>* out);

}  // namespace sundial::server
