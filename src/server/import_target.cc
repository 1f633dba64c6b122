#include "import_target.h"

#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <thread>
#include <utility>

#include "data_dir_lock.h"
#include "http_client.h"
#include "put_line_checker.h"
#include "sundial/common/ascii.h"
#include "sundial/ingest/telnet_put_handler.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/storage.h"

namespace sundial::server {

namespace {

constexpr std::chrono::milliseconds kTimeout{120000};
constexpr std::string_view kBarrier = "help\n";
constexpr std::string_view kBarrierReply = "available commands:";
// The telnet text of a point storage refused (read-only, disk full,
// stopped): ingest::PutErrorKind::kStorage.
constexpr std::string_view kStorageError = "put: HBase error: ";

// The reply lines of `replies` before its first barrier reply.
std::vector<std::string_view> LinesBeforeBarrier(std::string_view replies) {
  std::vector<std::string_view> out;
  for (size_t p = 0; p < replies.size();) {
    const size_t nl = replies.find('\n', p);
    if (nl == std::string_view::npos) break;
    const std::string_view line = replies.substr(p, nl - p);
    if (StartsWith(line, kBarrierReply)) break;
    out.push_back(line);
    p = nl + 1;
  }
  return out;
}

class RemoteTarget final : public PutTarget {
 public:
  explicit RemoteTarget(const RemoteOptions& options) : options_(options) {}

  Status Connect(const std::string& url) {
    HttpUrl u;
    SUNDIAL_RETURN_IF_ERROR(ParseToolUrl(url, &u));
    return client_.Connect(u.endpoint, std::chrono::milliseconds(10000));
  }

  Status Send(const PutBatch& batch, std::vector<Rejection>* rejected) override {
    rejected->clear();
    if (batch.empty()) return Status::OK();
    for (uint32_t attempt = 0;; ++attempt) {
      out_.assign(batch.text());
      out_.append(kBarrier);
      SUNDIAL_RETURN_IF_ERROR(Exchange(1));
      const std::vector<std::string_view> errors = LinesBeforeBarrier(replies_);
      if (errors.empty()) return Status::OK();
      std::string_view refusal;
      for (std::string_view e : errors) {
        if (refusal.empty() && StartsWith(e, kStorageError)) refusal = e;
      }
      if (refusal.empty()) return PinErrors(batch, errors, rejected);
      // Storage refused points: nothing of the failed appends was stored.
      // Wait and send the batch again (what was stored of it is written
      // again, with the same values), a bounded number of times.
      if (attempt >= options_.refusal_retries) {
        return Status::Unavailable("the server refuses writes after " +
                                       std::to_string(attempt + 1) + " attempts",
                                   refusal.substr(kStorageError.size()));
      }
      std::this_thread::sleep_for(options_.refusal_backoff * (1u << std::min(attempt, 8u)));
    }
  }

  Status Finish() override { return Status::OK(); }

 private:
  // Ties the error lines of the server's answer to the batch's lines
  // without sending anything again: the checker's errors for the batch,
  // in order, must be exactly the server's. Otherwise (rules the checker
  // cannot apply, see put_line_checker.h) falls back to ResendPinned().
  Status PinErrors(const PutBatch& batch, const std::vector<std::string_view>& errors,
                   std::vector<Rejection>* rejected) {
    if (!checker_) checker_ = std::make_unique<PutLineChecker>(options_.ingest);
    std::string reply;
    for (size_t i = 0; i < batch.size() && rejected->size() <= errors.size(); ++i) {
      std::string_view line = batch.line(i);
      line.remove_suffix(1);
      reply.clear();
      checker_->Check(line, &reply);
      for (size_t p = 0; p < reply.size();) {
        const size_t nl = reply.find('\n', p);
        const size_t end = nl == std::string::npos ? reply.size() : nl;
        rejected->push_back({i, reply.substr(p, end - p)});
        p = end + 1;
      }
    }
    bool same = rejected->size() == errors.size();
    for (size_t k = 0; same && k < errors.size(); ++k) same = (*rejected)[k].reason == errors[k];
    if (same) return Status::OK();
    rejected->clear();
    return ResendPinned(batch, rejected);
  }

  // Sends the batch again with a barrier after every line, which ties each
  // error line to its put line. The lines the server accepted the first
  // time are stored a second time (same values).
  Status ResendPinned(const PutBatch& batch, std::vector<Rejection>* rejected) {
    out_.clear();
    for (size_t i = 0; i < batch.size(); ++i) out_.append(batch.line(i)).append(kBarrier);
    SUNDIAL_RETURN_IF_ERROR(Exchange(batch.size()));
    size_t index = 0;
    for (size_t p = 0; p < replies_.size();) {
      const size_t nl = replies_.find('\n', p);
      if (nl == std::string::npos) break;
      const std::string_view line(replies_.data() + p, nl - p);
      if (line.compare(0, kBarrierReply.size(), kBarrierReply) == 0) {
        ++index;
      } else {
        rejected->push_back({index, std::string(line)});
      }
      p = nl + 1;
    }
    return Status::OK();
  }

  // Sends out_ while collecting the reply lines into replies_ until
  // `barriers` barrier replies arrived. Reading while sending keeps a
  // server whose reply buffer is full from stalling both sides.
  Status Exchange(size_t barriers) {
    replies_.clear();
    size_t sent = 0, seen = 0, scanned = 0;
    int fd = client_.fd();
    while (seen < barriers) {
      pollfd p{fd, static_cast<short>(POLLIN | (sent < out_.size() ? POLLOUT : 0)), 0};
      const int n = ::poll(&p, 1, static_cast<int>(kTimeout.count()));
      if (n == 0) return Status::IOError("no reply from " + client_.peer(), "timed out");
      if (n < 0) continue;
      if ((p.revents & POLLOUT) && sent < out_.size()) {
        const ssize_t w =
            ::send(fd, out_.data() + sent, out_.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) sent += static_cast<size_t>(w);
      }
      if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
        const Status s = client_.Receive(&replies_, kTimeout);
        if (!s.ok()) return Status::IOError("connection to " + client_.peer(), s.ToString());
        for (size_t nl; (nl = replies_.find('\n', scanned)) != std::string::npos; scanned = nl + 1) {
          if (replies_.compare(scanned, kBarrierReply.size(), kBarrierReply) == 0) ++seen;
        }
      }
    }
    return Status::OK();
  }

  const RemoteOptions options_;
  TcpClient client_;
  std::string out_;
  std::string replies_;
  std::unique_ptr<PutLineChecker> checker_;  // made at the first error
};

class LocalTarget final : public PutTarget {
 public:
  explicit LocalTarget(const Options& options) : options_(options) {}
  ~LocalTarget() override { (void)Finish(); }

  Status Open() {
    SUNDIAL_RETURN_IF_ERROR(lock_.Acquire(options_.storage.data_dir));
    storage::StorageOptions so = options_.storage;
    const std::string rollup_dir = options_.storage.data_dir + "/rollup";
    if (options_.rollup.enabled) {
      // Late points are logged for the server to roll up at its next start.
      rollup::RollupOptions ro = options_.rollup.store;
      ro.dir = rollup_dir;
      ro.retention_ms = options_.storage.retention_ms;
      SUNDIAL_RETURN_IF_ERROR(rollup::RollupStore::Open(ro, &rollups_));
      so.late_observer = rollups_.get();
    } else {
      SUNDIAL_RETURN_IF_ERROR(rollup::RollupStore::Invalidate(rollup_dir));
    }
    SUNDIAL_RETURN_IF_ERROR(storage::Storage::Open(so, &storage_));
    ingest_options_.max_tags = options_.ingest.max_tags;
    ingest_options_.auto_create_metrics = options_.ingest.auto_create_metrics;
    ingest_options_.allow_specialchars = options_.ingest.allow_specialchars;
    rules_ = std::make_unique<ingest::PointRules>(ingest_options_);
    handler_ = std::make_unique<ingest::TelnetPutHandler>(storage_.get(), &ingest_options_,
                                                          rules_.get(), &stats_);
    return Status::OK();
  }

  Status Send(const PutBatch& batch, std::vector<Rejection>* rejected) override {
    rejected->clear();
    rejected_ = rejected;
    for (size_t i = 0; i < batch.size(); ++i) {
      std::string_view line = batch.line(i);
      line.remove_suffix(1);
      reply_.clear();
      handler_->HandlePut(line, &reply_);
      if (reply_.empty()) continue;
      // The handler flushed by itself (its buffer was full) and storage
      // failed: not a bad line.
      const size_t refused = reply_.find(kStorageError);
      if (refused != std::string::npos) {
        return Status::Unavailable("storage refused the batch",
                                   reply_.substr(refused + kStorageError.size(),
                                                 reply_.find('\n', refused) - refused -
                                                     kStorageError.size()));
      }
      AddRejections(i);
    }
    reply_.clear();
    const Status s = handler_->Flush(&reply_);
    if (!s.ok()) return Status::Unavailable("storage refused the batch", s.ToString());
    return Status::OK();
  }

  Status Finish() override {
    if (!storage_) return Status::OK();
    handler_.reset();
    const Status s = storage_->Sync();
    storage_.reset();  // seals and leaves an empty WAL
    rollups_.reset();
    return s;
  }

 private:
  void AddRejections(size_t index) {
    for (size_t p = 0; p < reply_.size();) {
      const size_t nl = reply_.find('\n', p);
      rejected_->push_back({index, reply_.substr(p, nl - p)});
      p = nl == std::string::npos ? reply_.size() : nl + 1;
    }
  }

  const Options options_;
  DataDirLock lock_;
  std::unique_ptr<rollup::RollupStore> rollups_;  // outlives storage_
  std::unique_ptr<storage::Storage> storage_;
  ingest::IngestOptions ingest_options_;
  std::unique_ptr<ingest::PointRules> rules_;
  ingest::IngestStats stats_;
  std::unique_ptr<ingest::TelnetPutHandler> handler_;
  std::string reply_;
  std::vector<Rejection>* rejected_ = nullptr;
};

}  // namespace

Status NewRemoteTarget(const std::string& url, const RemoteOptions& options,
                       std::unique_ptr<PutTarget>* out) {
  auto t = std::make_unique<RemoteTarget>(options);
  SUNDIAL_RETURN_IF_ERROR(t->Connect(url));
  *out = std::move(t);
  return Status::OK();
}

Status NewLocalTarget(const Options& options, std::unique_ptr<PutTarget>* out) {
  auto t = std::make_unique<LocalTarget>(options);
  SUNDIAL_RETURN_IF_ERROR(t->Open());
  *out = std::move(t);
  return Status::OK();
}

}  // namespace sundial::server
