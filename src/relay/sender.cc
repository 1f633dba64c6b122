#include "sender.h"

#include <snappy.h>

namespace sundial::relay {

SendOutcome ClassifyHttpStatus(int status) {
  if (status >= 200 && status < 300) return SendOutcome::kDelivered;
  if (status == 400 || status == 422) return SendOutcome::kRejected;
  if (status == 413) return SendOutcome::kTooLarge;
  if (status == 408 || status == 429) return SendOutcome::kRetry;
  if (status >= 400 && status < 500) return SendOutcome::kTargetFault;
  return SendOutcome::kRetry;  // 1xx (unexpected here), 3xx, 5xx and beyond
}

Sender::Sender(const TargetSpec& spec, std::chrono::milliseconds timeout)
    : spec_(spec), timeout_(timeout), conn_(spec.host, spec.port) {
  switch (spec.protocol) {
    case Protocol::kHttpPut:
      headers_ = "Content-Type: application/json\r\n";
      break;
    case Protocol::kRemoteWrite:
      headers_ =
          "Content-Type: application/x-protobuf\r\nContent-Encoding: snappy\r\n"
          "X-Prometheus-Remote-Write-Version: 0.1.0\r\n";
      break;
    case Protocol::kInflux:
      headers_ = "Content-Type: text/plain; charset=utf-8\r\n";
      break;
    case Protocol::kTelnet:
      break;
  }
  if (!spec.authorization.empty()) headers_ += "Authorization: " + spec.authorization + "\r\n";
}

SendOutcome Sender::Send(const RelayPoint* points, size_t n, size_t* left_out,
                         std::string* error) {
  *left_out = EncodeBatch(spec_.protocol, points, n, &body_);
  if (body_.empty()) return SendOutcome::kDelivered;  // nothing the protocol can carry
  if (spec_.protocol == Protocol::kTelnet) {
    std::string reply;
    const Status s = conn_.SendLines(body_, timeout_, &reply);
    connected_ = s.ok();
    if (!s.ok()) {
      *error = s.ToString();
      return SendOutcome::kRetry;
    }
    // Telnet has no acknowledgements; an error line the upstream sent back
    // (about an earlier batch) is only reported.
    if (!reply.empty()) *error = "upstream said: " + reply;
    return SendOutcome::kDelivered;
  }
  std::string_view payload = body_;
  if (spec_.protocol == Protocol::kRemoteWrite) {
    compressed_.clear();
    snappy::Compress(body_.data(), body_.size(), &compressed_);
    payload = compressed_;
  }
  HttpResponse r;
  const Status s = conn_.Post(spec_.path, headers_, payload, timeout_, &r);
  connected_ = s.ok();
  if (!s.ok()) {
    *error = s.ToString();
    return SendOutcome::kRetry;
  }
  const SendOutcome outcome = ClassifyHttpStatus(r.status);
  if (outcome != SendOutcome::kDelivered) {
    *error = "HTTP " + std::to_string(r.status) + ": " + r.body.substr(0, 300);
  }
  return outcome;
}

}  // namespace sundial::relay
