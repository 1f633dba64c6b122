// The bulk data tools of the sundiald binary (README "Import and export"):
//
//   sundiald import [--url URL | --data-dir DIR] [--format F] FILE...
//   sundiald import [--url URL | --data-dir DIR] --from URL --metrics P,...
//                   --start T [--end T] [--chunk 1d] [--state FILE]
//   sundiald export (--url URL | --data-dir DIR) [--format put|json|csv]
//                   [--start T] [--end T] METRIC_OR_EXPR...
//
// Exit codes: 0 success; 1 some lines were rejected (the rest was
// imported); 2 bad command line (also a --data-dir that holds no data dir
// while its data/ subdirectory does); 3 the work stopped early (a file
// could not be read, the target or source failed, the data dir is locked);
// 4 (import) the server or storage refuses writes (read-only, disk full).
#pragma once

#include <string>
#include <vector>

#include "options.h"

namespace sundial::server {

// argv[0] is the subcommand name.
int RunImportCommand(int argc, char** argv);
int RunExportCommand(int argc, char** argv);

// Parsed command-line flags of a tool: its own flags, the positional
// arguments, and server flags (--data-dir, --config, any other --key) that
// build the Options used with --data-dir.
struct ToolArgs {
  std::vector<std::pair<std::string, std::string>> flags;  // own flags, in order
  std::vector<std::string> positional;
  Options options = DefaultOptions();
  bool data_dir_given = false;

  // The last value of an own flag, or def.
  std::string Get(const std::string& name, const std::string& def = "") const;
  bool Has(const std::string& name) const;
};

// Splits argv (after the subcommand) into own flags (names in `own`, each
// taking a value), positional arguments and server flags. InvalidArgument
// on a flag without a value or a bad server flag.
Status ParseToolArgs(int argc, char** argv, const std::vector<std::string>& own, ToolArgs* out);

// InvalidArgument when dir holds no data directory (neither series.log nor
// wal/) but dir/data does: the .deb's data dir is /var/lib/sundial/data,
// and opening /var/lib/sundial would create a second, empty one. OK
// otherwise (also for a new, empty or missing dir).
Status CheckToolDataDir(const std::string& dir);

struct MigrateParams {
  std::string from;                   // source base URL
  std::vector<std::string> patterns;  // metric globs
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t chunk_ms = 86400000;
  std::string state_path;             // "" = not resumable
};

class BatchSender;
class ImportReport;

// Copies raw points from a server answering OpenTSDB's /api/suggest and
// /api/query to sender (migrate.cc).
Status Migrate(const MigrateParams& params, BatchSender* sender, ImportReport* report);

}  // namespace sundial::server
