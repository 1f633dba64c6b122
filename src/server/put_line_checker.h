// PutLineChecker: tells which put lines a server would reject, and with
// which reply line, without a server: every line goes through the same
// ingest::TelnetPutHandler that a telnet connection uses, over a storage
// that accepts every series and point and keeps nothing.
//
// Why: `sundiald import` sends a batch of put lines followed by one
// barrier. When the server's replies hold error lines, the checker finds
// the lines they belong to, so that no line is sent twice (a second send
// would store every good line of the batch again). It knows only the
// rules that need no stored state, with the options it was given: a
// metric the server does not know while auto_create_metrics is off, a
// storage failure, or a server configured differently are beyond it, and
// the caller sees that as a mismatch with the server's answer.
//
// Thread-safety: one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "sundial/ingest/ingest_options.h"

namespace sundial::server {

class PutLineChecker {
 public:
  // options.auto_create_metrics is taken as true (every metric is known
  // here); the other rules (max_tags, allow_specialchars) as given.
  explicit PutLineChecker(const ingest::IngestOptions& options);
  ~PutLineChecker();
  PutLineChecker(const PutLineChecker&) = delete;
  PutLineChecker& operator=(const PutLineChecker&) = delete;

  // Appends to *reply the error line(s) a server would send for one put
  // line (without "\n"); nothing if it would store the point.
  void Check(std::string_view put_line, std::string* reply);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sundial::server
