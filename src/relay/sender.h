// Sender: delivers one chunk of points to one upstream in its protocol and
// classifies the outcome. Used by one relay thread.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include "encoder.h"
#include "upstream_connection.h"
#include "sundial/relay/target_spec.h"

namespace sundial::relay {

enum class SendOutcome {
  kDelivered,    // acknowledged (telnet: every byte acknowledged by the upstream's TCP,
                 // or with ack=version the reply to a `version` sent after it arrived)
  kRejected,     // the data is bad (HTTP 400, 422): skip it
  kTooLarge,     // HTTP 413: send the same points in smaller requests
  kTargetFault,  // 401, 403, 404, 405 and every other 4xx: the URL, credentials
                 // or a proxy are wrong, not the data: keep it, retry later
  kRetry,        // network error, timeout, 5xx, 408, 429 or 3xx: send it again later
};

// The outcome of an HTTP reply with this status code. Only answers that
// mean "this data is bad" may lose data (kRejected); anything that could be
// a misconfigured target keeps it, so a wrong token or path never throws
// away a backlog.
SendOutcome ClassifyHttpStatus(int status);

class Sender {
 public:
  Sender(const TargetSpec& spec, std::chrono::milliseconds timeout);
  Sender(const Sender&) = delete;
  Sender& operator=(const Sender&) = delete;

  // Sends points [0, n). *left_out: points of a delivered batch that the
  // upstream will not hold: those the protocol cannot carry (left out of
  // the request) and, with ack=version, one per error line a telnet
  // upstream answered (it refused them as bad data; they are not sent
  // again). *error describes any outcome but kDelivered (and may carry a
  // telnet upstream's error line with kDelivered). With ack=version, a
  // storage failure line (`put: HBase error`, `put: Please throttle
  // writes`) before the version reply is kRetry: the whole batch again.
  SendOutcome Send(const RelayPoint* points, size_t n, size_t* left_out, std::string* error);
  // Whether the last attempt reached the upstream.
  bool connected() const { return connected_; }
  // Points of the last delivered batch a telnet upstream refused line by
  // line (ack=version; part of *left_out).
  size_t refused() const { return refused_; }

 private:
  const TargetSpec& spec_;
  const std::chrono::milliseconds timeout_;
  std::string headers_;  // fixed extra header lines
  UpstreamConnection conn_;
  std::string body_;
  std::string compressed_;
  bool connected_ = false;
  size_t refused_ = 0;

  SendOutcome SendTelnet(size_t n, size_t* left_out, std::string* error);
};

}  // namespace sundial::relay
