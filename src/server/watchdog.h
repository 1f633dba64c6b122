// Watchdog: keeps systemd's WatchdogSec= fed while the I/O threads are alive.
//
// Why not just a timer: a timer thread would keep sending WATCHDOG=1 while
// every I/O thread is stuck, and systemd would never restart a server that
// accepts no connection. So each round posts a no-op to every io_context of
// the pool and sends WATCHDOG=1 only when all of them ran it within a
// bounded wait (half the watchdog timeout). A round that misses sends
// nothing and logs which context lagged; systemd restarts the service once
// the timeout passes without a ping.
//
// Thread-safety: Start() and Stop() from the owning thread only. The pool
// and notifier must outlive the Watchdog (Stop() is called before the pool
// stops).
#pragma once

#include <chrono>
#include <thread>

#include "sd_notify.h"
#include "sundial/common/mutex.h"
#include "sundial/net/io_context_pool.h"

namespace sundial::server {

class Watchdog {
 public:
  // interval: time between rounds (a round waits at most this long for the
  // I/O threads). REQUIRES: interval > 0.
  Watchdog(const SdNotifier* notifier, net::IoContextPool* pool,
           std::chrono::microseconds interval);
  ~Watchdog();  // Stop()

  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // Starts the thread. REQUIRES: called once.
  void Start();
  // Stops and joins the thread. Idempotent.
  void Stop();

 private:
  void Loop();
  // Posts a no-op to every context; true when all ran it within `wait`.
  bool IoThreadsAlive(std::chrono::microseconds wait);

  const SdNotifier* const notifier_;
  net::IoContextPool* const pool_;
  const std::chrono::microseconds interval_;
  Mutex mu_;
  CondVar cv_{&mu_};
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace sundial::server
