// Logging setup: spdlog to stderr and, optionally, a size-rotated file.
//
// The logger is spdlog's default logger, so server/ code logs with
// spdlog::info(...). Only server/ logs (STYLE.md §4); modules return Status.
#pragma once

#include "options.h"
#include "sundial/common/status.h"

namespace sundial::server {

// Installs the default logger. Fails if the log file cannot be opened.
Status SetUpLogging(const LogOptions& options);

// Re-opens the log file (after logrotate moved it away). Safe from any
// thread; logs and keeps the old file on failure.
void ReopenLogFile(const LogOptions& options);

}  // namespace sundial::server
