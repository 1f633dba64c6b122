#include "logging.h"

#include <memory>
#include <vector>

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace sundial::server {

namespace {

StatusOr<std::shared_ptr<spdlog::logger>> MakeLogger(const LogOptions& options) {
  std::vector<spdlog::sink_ptr> sinks;
  sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  if (!options.file.empty()) {
    try {
      sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
          options.file, static_cast<size_t>(options.file_max_bytes), options.file_count));
    } catch (const spdlog::spdlog_ex& e) {
      return Status::IOError("cannot open log file " + options.file, e.what());
    }
  }
  auto logger = std::make_shared<spdlog::logger>("sundial", sinks.begin(), sinks.end());
  logger->set_level(spdlog::level::from_str(options.level));
  logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %L [%t] %v");
  logger->flush_on(spdlog::level::warn);
  return logger;
}

}  // namespace

Status SetUpLogging(const LogOptions& options) {
  auto logger = MakeLogger(options);
  if (!logger.ok()) return logger.status();
  spdlog::set_default_logger(std::move(logger).value());
  spdlog::flush_every(std::chrono::seconds(1));
  return Status::OK();
}

void ReopenLogFile(const LogOptions& options) {
  if (options.file.empty()) return;
  auto logger = MakeLogger(options);
  if (!logger.ok()) {
    spdlog::error("log file not reopened: {}", logger.status().ToString());
    return;
  }
  spdlog::default_logger()->flush();
  spdlog::set_default_logger(std::move(logger).value());
  spdlog::info("log file reopened: {}", options.file);
}

}  // namespace sundial::server
