// Status: the result of a fallible operation, with a code and a message.
//
// Why: modules never throw across their boundaries and never log-and-return
// bool; they return a Status that the caller passes up with context added
// (Status::IOError(path, strerror(errno))). Only server/ maps a Status to an
// HTTP code or a log line. An ok Status carries no allocation.
//
// Thread-safety: a Status is a value; distinct objects may be used from
// distinct threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace sundial {

class [[nodiscard]] Status {
 public:
  enum class Code : unsigned char {
    kOk = 0,
    kNotFound,
    kCorruption,
    kInvalidArgument,
    kIOError,
    kOutOfOrder,
    kTooOld,
    kBusy,
    kResourceExhausted,  // a configured limit (size, count, memory) was hit
    kDeadlineExceeded,
    kUnavailable,        // shutting down, or a sticky background error
  };

  Status() noexcept = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&& other) noexcept = default;
  Status& operator=(Status&& other) noexcept = default;

  static Status OK() { return Status(); }
  static Status NotFound(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kNotFound, msg, msg2);
  }
  static Status Corruption(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kCorruption, msg, msg2);
  }
  static Status InvalidArgument(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kInvalidArgument, msg, msg2);
  }
  static Status IOError(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kIOError, msg, msg2);
  }
  static Status OutOfOrder(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kOutOfOrder, msg, msg2);
  }
  static Status TooOld(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kTooOld, msg, msg2);
  }
  static Status Busy(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kBusy, msg, msg2);
  }
  static Status ResourceExhausted(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kResourceExhausted, msg, msg2);
  }
  static Status DeadlineExceeded(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kDeadlineExceeded, msg, msg2);
  }
  static Status Unavailable(std::string_view msg, std::string_view msg2 = {}) {
    return Status(Code::kUnavailable, msg, msg2);
  }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return state_ ? state_->code : Code::kOk; }
  bool IsNotFound() const { return code() == Code::kNotFound; }
  bool IsCorruption() const { return code() == Code::kCorruption; }
  bool IsInvalidArgument() const { return code() == Code::kInvalidArgument; }
  bool IsIOError() const { return code() == Code::kIOError; }
  bool IsResourceExhausted() const { return code() == Code::kResourceExhausted; }

  // The message alone ("" when ok), without the code name.
  const std::string& message() const;
  // "<CodeName>: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>". Ok stays ok.
  Status WithContext(std::string_view context) const;

 private:
  struct State {
    Code code;
    std::string msg;
  };
  Status(Code code, std::string_view msg, std::string_view msg2);

  std::unique_ptr<State> state_;  // null means ok
};

// StatusOr<T>: a T or a non-ok Status.
// REQUIRES: value() only when ok().
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status s) : status_(std::move(s)) {}  // NOLINT: implicit by design
  StatusOr(T value) : value_(std::move(value)), has_value_(true) {}  // NOLINT

  bool ok() const { return has_value_; }
  const Status& status() const { return status_; }
  T& value() & { return value_; }
  const T& value() const& { return value_; }
  T&& value() && { return std::move(value_); }

 private:
  Status status_;
  T value_{};
  bool has_value_ = false;
};

}  // namespace sundial

// Evaluates expr (a Status) and returns it from the calling function if not ok.
#define SUNDIAL_RETURN_IF_ERROR(expr)           \
  do {                                          \
    ::sundial::Status _st = (expr);             \
    if (!_st.ok()) return _st;                  \
  } while (0)
