// sundiald: parses options, sets up logging, runs the server.
// Exit codes: 0 after a clean shutdown, 1 if the server cannot start,
// 2 for a bad command line or config file. --health exits 0 or 1.
#include <chrono>
#include <cstdio>
#include <exception>
#include <string_view>

#include <spdlog/spdlog.h>

#include "build_info.h"
#include "cli_tools.h"
#include "health_check.h"
#include "logging.h"
#include "options.h"
#include "server.h"

int main(int argc, char** argv) {
  using namespace sundial::server;
  try {
    if (argc > 1 && std::string_view(argv[1]) == "import") return RunImportCommand(argc - 1, argv + 1);
    if (argc > 1 && std::string_view(argv[1]) == "export") return RunExportCommand(argc - 1, argv + 1);
    Options options = DefaultOptions();
    CliAction action = CliAction::kRun;
    const sundial::Status s = ParseCommandLine(argc, argv, &options, &action);
    if (!s.ok()) {
      std::fprintf(stderr, "sundiald: %s\nTry 'sundiald --help'.\n", s.message().c_str());
      return 2;
    }
    switch (action) {
      case CliAction::kHelp: std::fputs(HelpText().c_str(), stdout); return 0;
      case CliAction::kVersion: std::printf("sundiald %s (%s)\n", kSundialVersion, kGitRevision); return 0;
      case CliAction::kPrintConfig: std::fputs(DefaultConfigText().c_str(), stdout); return 0;
      case CliAction::kMan: std::fputs(ManPageText().c_str(), stdout); return 0;
      case CliAction::kHealth: {
        const std::string url =
            options.health_url.empty() ? DefaultHealthUrl(options) : options.health_url;
        const sundial::Status health = CheckHealth(url, std::chrono::seconds(3));
        if (!health.ok()) std::fprintf(stderr, "sundiald: unhealthy: %s\n", health.ToString().c_str());
        return health.ok() ? 0 : 1;
      }
      case CliAction::kRun: break;
    }
    const sundial::Status log_status = SetUpLogging(options.log);
    if (!log_status.ok()) {
      std::fprintf(stderr, "sundiald: %s\n", log_status.ToString().c_str());
      return 1;
    }
    Server server(options);
    const sundial::Status start = server.Start();
    if (!start.ok()) {
      spdlog::critical("cannot start: {}", start.ToString());
      return 1;
    }
    server.Run();
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sundiald: fatal: %s\n", e.what());
    return 1;
  }
}
