// Config file and command-line parsing over the option table.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "options.h"

namespace sundial::server {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The key of a flag ("--data-dir" -> "data_dir"), or "" if none matches.
std::string_view KeyForFlag(std::string_view flag) {
  for (const OptionSpec& spec : OptionTable()) {
    if (FlagForKey(spec.key) == flag) return spec.key;
  }
  return {};
}

}  // namespace

Status LoadConfigFile(const std::string& path, Options* options) {
  std::ifstream in(path);
  if (!in) return Status::IOError("cannot read config file " + path, strerror(errno));
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const std::string where = path + ":" + std::to_string(lineno);
    std::string_view l = Trim(line);
    if (l.empty() || l.front() == '#') continue;
    const size_t eq = l.find('=');
    if (eq == std::string_view::npos) {
      return Status::InvalidArgument(where, "expected 'key = value', got \"" + std::string(l) + "\"");
    }
    const std::string_view key = Trim(l.substr(0, eq));
    const std::string_view value = Trim(l.substr(eq + 1));
    Status s = SetOption(key, value, options);
    if (!s.ok()) return s.WithContext(where);
  }
  return Status::OK();
}

Status ParseCommandLine(int argc, const char* const* argv, Options* options, CliAction* action) {
  *action = CliAction::kRun;
  // Split "--flag=value" and "--flag value" into pairs first.
  std::vector<std::pair<std::string, std::string>> flags;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      *action = CliAction::kHelp;
      return Status::OK();
    }
    if (arg == "--version") {
      *action = CliAction::kVersion;
      return Status::OK();
    }
    if (arg == "--print-config") {
      *action = CliAction::kPrintConfig;
      continue;
    }
    if (arg == "--man") {
      *action = CliAction::kMan;
      return Status::OK();
    }
    if (arg == "--health" || arg.substr(0, 9) == "--health=") {
      *action = CliAction::kHealth;
      if (arg.size() > 9) options->health_url = std::string(arg.substr(9));
      continue;
    }
    if (arg.size() < 3 || arg.substr(0, 2) != "--") {
      return Status::InvalidArgument("unexpected argument", std::string(arg));
    }
    const size_t eq = arg.find('=');
    const std::string_view flag = arg.substr(0, eq);
    if (flag != "--config" && KeyForFlag(flag).empty()) {
      return Status::InvalidArgument("unknown option", std::string(flag));
    }
    if (eq != std::string_view::npos) {
      flags.emplace_back(std::string(flag), std::string(arg.substr(eq + 1)));
      continue;
    }
    if (i + 1 >= argc) return Status::InvalidArgument("missing value for", std::string(arg));
    flags.emplace_back(std::string(arg), argv[++i]);
  }
  for (const auto& [flag, value] : flags) {
    if (flag == "--config") options->config_file = value;
  }
  if (!options->config_file.empty()) {
    SUNDIAL_RETURN_IF_ERROR(LoadConfigFile(options->config_file, options));
  }
  for (const auto& [flag, value] : flags) {
    if (flag == "--config") continue;
    const std::string_view key = KeyForFlag(flag);
    Status s = SetOption(key, value, options);
    if (!s.ok()) return Status::InvalidArgument(flag, s.message());
  }
  return Status::OK();
}

std::string HelpText() {
  std::ostringstream out;
  out << "Usage: sundiald [--config FILE] [--<option> VALUE ...]\n\n"
         "Sundial time-series database server (OpenTSDB telnet and HTTP API on one port).\n\n"
         "  --config FILE      read options from FILE (key = value); flags override it\n"
         "  --print-config     print a config file listing every option at its default\n"
         "  --health[=URL]     probe a running server: GET URL (default: /api/version on\n"
         "                     the configured bind address and port) within 3 s; exit 0\n"
         "                     on HTTP 200, else 1. A host name is looked up first\n"
         "  --man              print the sundiald(8) manual page (roff) and exit\n"
         "  --version          print the version and exit\n"
         "  --help             print this text and exit\n\n"
         "Options (config key in brackets, default after '='):\n";
  for (const OptionSpec& spec : OptionTable()) {
    out << "  " << FlagForKey(spec.key) << " [" << spec.key << "] = "
        << (spec.default_value.empty() ? "\"\"" : spec.default_value) << "\n      " << spec.help
        << "\n";
  }
  out << "\nSizes: 512, 64KiB, 16MiB, 1GiB. Durations: 0, 500ms, 30s, 5m, 1h, 1d, 1w.\n";
  return out.str();
}

std::string DefaultConfigText() {
  std::ostringstream out;
  out << "# Sundial server configuration: `key = value`, one per line; '#' starts a comment.\n"
         "# Every key is listed with its default. Each can also be given on the command\n"
         "# line as --key-with-dashes VALUE, which wins over this file.\n"
         "# Sizes: 512, 64KiB, 16MiB, 1GiB. Durations: 0, 500ms, 30s, 5m, 1h, 1d, 1w.\n";
  for (const OptionSpec& spec : OptionTable()) {
    out << "\n# " << spec.help << "\n" << spec.key << " = " << spec.default_value << "\n";
  }
  return out.str();
}

}  // namespace sundial::server
