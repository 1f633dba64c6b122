// SdNotifier: the service manager's readiness protocol (sd_notify(3))
// without libsystemd, which the fully static Pi Zero build cannot link.
//
// Protocol: each message is one datagram of newline-separated KEY=VALUE
// assignments (READY=1, STATUS=..., STOPPING=1, WATCHDOG=1) sent to the
// AF_UNIX datagram socket named by $NOTIFY_SOCKET. A name starting with '@'
// is in the abstract namespace (the '@' stands for a leading NUL byte); any
// other name is a filesystem path. Without $NOTIFY_SOCKET (not started by
// systemd, or not Type=notify) every call is a no-op that succeeds.
//
// Watchdog: with WatchdogSec= systemd sets $WATCHDOG_USEC (and
// $WATCHDOG_PID); the service must send WATCHDOG=1 more often than that.
//
// Thread-safety: const after construction; Notify() may be called from any
// thread (each call opens, uses and closes its own socket).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "sundial/common/status.h"

namespace sundial::server {

class SdNotifier {
 public:
  // Reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID.
  static SdNotifier FromEnvironment();
  // A notifier for the given socket name ("" = disabled) and watchdog
  // timeout (0 = none).
  SdNotifier(std::string socket_name, std::chrono::microseconds watchdog_timeout);

  bool enabled() const { return !socket_name_.empty(); }

  // Sends `state` as one datagram. IOError (with the socket name) if it
  // cannot be sent; OK and nothing sent when disabled.
  [[nodiscard]] Status Notify(std::string_view state) const;

  // The watchdog timeout systemd asked for, or 0 when there is none (no
  // $WATCHDOG_USEC, or $WATCHDOG_PID names another process). WATCHDOG=1 is
  // due at least this often; sending it twice as often is customary.
  std::chrono::microseconds watchdog_timeout() const { return watchdog_timeout_; }

 private:
  const std::string socket_name_;
  const std::chrono::microseconds watchdog_timeout_;
};

}  // namespace sundial::server
