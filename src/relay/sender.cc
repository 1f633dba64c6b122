#include "sender.h"

#include <snappy.h>

#include <algorithm>

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
  refused_ = 0;
  *left_out = EncodeBatch(spec_.protocol, points, n, &body_);
  if (body_.empty()) return SendOutcome::kDelivered;  // nothing the protocol can carry
  if (spec_.protocol == Protocol::kTelnet) return SendTelnet(n, left_out, error);
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

SendOutcome Sender::SendTelnet(size_t n, size_t* left_out, std::string* error) {
  if (spec_.ack == TelnetAck::kTcp) {
    std::string reply;
    const Status s = conn_.SendLines(body_, timeout_, &reply);
    connected_ = s.ok();
    if (!s.ok()) {
      *error = s.ToString();
      return SendOutcome::kRetry;
    }
    // Without ack=version nothing says which batch an error line is
    // about: it is only reported.
    if (!reply.empty()) *error = "upstream said: " + reply;
    return SendOutcome::kDelivered;
  }
  const TelnetReplyParser* replies = nullptr;
  const Status s = conn_.SendLinesAwaitVersion(body_, timeout_, &replies);
  connected_ = s.ok();
  if (!s.ok()) {
    *error = s.ToString();
    return SendOutcome::kRetry;
  }
  if (replies->storage_errors() > 0) {
    *error = "upstream could not store points (" + std::to_string(replies->storage_errors()) +
             " storage errors): " + replies->first_error();
    return SendOutcome::kRetry;
  }
  if (replies->error_lines() > 0) {
    const size_t sent = n - *left_out;
    const size_t refused = static_cast<size_t>(std::min<uint64_t>(replies->error_lines(), sent));
    *left_out += refused;
    refused_ = refused;
    *error = "upstream refused " + std::to_string(refused) + " of " + std::to_string(sent) +
             " points: " + replies->first_error();
  }
  return SendOutcome::kDelivered;
}

}  // namespace sundial::relay
