#include "sundial/common/status.h"

namespace sundial {
namespace {

const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kNotFound: return "NotFound";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kInvalidArgument: return "InvalidArgument";
    case Status::Code::kIOError: return "IOError";
    case Status::Code::kOutOfOrder: return "OutOfOrder";
    case Status::Code::kTooOld: return "TooOld";
    case Status::Code::kBusy: return "Busy";
    case Status::Code::kResourceExhausted: return "ResourceExhausted";
    case Status::Code::kDeadlineExceeded: return "DeadlineExceeded";
    case Status::Code::kUnavailable: return "Unavailable";
  }
  return "Unknown";
}

}  // namespace

Status::Status(Code code, std::string_view msg, std::string_view msg2)
    : state_(std::make_unique<State>()) {
  state_->code = code;
  state_->msg.assign(msg.data(), msg.size());
  if (!msg2.empty()) {
    state_->msg.append(": ");
    state_->msg.append(msg2.data(), msg2.size());
  }
}

Status::Status(const Status& other)
    : state_(other.state_ ? std::make_unique<State>(*other.state_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    state_ = other.state_ ? std::make_unique<State>(*other.state_) : nullptr;
  }
  return *this;
}

const std::string& Status::message() const {
  static const std::string kEmpty;  // immutable
  return state_ ? state_->msg : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = CodeName(state_->code);
  out.append(": ");
  out.append(state_->msg);
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return Status();
  return Status(state_->code, context, state_->msg);
}

}  // namespace sundial
