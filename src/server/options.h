// Options: every setting of sundiald, and the one table that defines them.
//
// Why one table: each option is named, documented, defaulted and parsed in
// exactly one place (kOptionTable in options.cc). The config file
// (`key = value`), the command line (`--key value`, with '.' and '_' in the
// key written as '-'), `--help`, `--print-config`, conf/sundial.conf and the
// README's table all come from it. The command line wins over the file.
//
// Value syntax:
//   sizes      512, 64KiB, 64MiB, 1GiB (K/M/G and KB/MB/GB are also 1024-based)
//   durations  0, 250ms, 30s, 5m, 1h, 1d, 1w (a unit is required unless 0)
//   booleans   true/false, yes/no, on/off, 1/0
//
// Module options are the modules' own structs (StorageOptions, LineOptions,
// HttpOptions, IngestOptions), filled here and passed down by constructors: no globals.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sundial/common/status.h"
#include "sundial/http/http_connection.h"
#include "sundial/ingest/ingest_options.h"
#include "sundial/net/line_connection.h"
#include "sundial/net/listener.h"
#include "sundial/relay/relay.h"
#include "sundial/rollup/rollup_store.h"
#include "sundial/storage/storage.h"

namespace sundial::server {

struct LogOptions {
  std::string level;           // trace|debug|info|warn|error|critical|off
  std::string file;            // "" = stderr only
  uint64_t file_max_bytes = 0; // rotate when the file reaches this size
  uint32_t file_count = 0;     // rotated files kept
};

struct QueryOptions {
  uint32_t threads = 0;         // worker pool size
  uint32_t spare_threads = 0;   // threads the pool may add for queries waiting on clients
  uint64_t max_series = 0;      // per query; 0 = unlimited
  uint64_t max_points = 0;      // per query; 0 = unlimited
  std::chrono::milliseconds deadline{0};  // per query; 0 = none
  // A query within both bounds runs on the I/O thread that read it (no
  // hop to the pool); a bigger one goes to the pool after at most this
  // much work. 0 = every query goes to the pool.
  uint64_t inline_max_series = 0;
  uint64_t inline_max_points = 0;
  size_t cache_bytes = 0;  // bucket cache (sundial/query/bucket_cache.h); 0 = off
  // Limits on what one query produces and holds (query::QueryLimits).
  uint64_t max_output_points = 0;  // 0 = unlimited
  uint64_t max_output_bytes = 0;   // 0 = unlimited
  uint64_t max_memory = 0;         // 0 = unlimited
  size_t max_regex_length = 0;     // 0 = query::kMaxRegexLength
  uint64_t max_results = 0;        // suggest/lookup/last results; 0 = unlimited
  bool allow_delete = false;       // /api/query "delete" and DELETE /api/series
};

struct RollupServerOptions {
  bool enabled = false;          // build rollups and let queries use them
  rollup::RollupOptions store;   // dir and retention are filled in by the server
};

struct TelnetOptions {
  bool diediedie = false;       // allow the `diediedie` shutdown command
};

struct GraphiteOptions {
  uint16_t port = 0;            // Graphite plaintext listener; 0 = off
  std::string bind;             // its address; "" = the main bind address
};

struct Options {
  std::string config_file;      // set by --config, not a key itself
  std::string health_url;       // set by --health=URL, not a key itself

  net::ListenerOptions listener;  // bind, port, idle timeout
  uint32_t io_threads = 0;        // 0 = one per core
  uint32_t io_busy_poll_us = 0;   // I/O threads' polling after activity; 0 = off
  size_t max_connections = 0;     // 0 = unlimited
  size_t max_connections_per_address = 0;  // 0 = unlimited
  net::LineOptions line;
  // HEAD is parsed: InfluxDB clients send HEAD /ping (influx_routes.cc).
  http::HttpOptions http = [] {
    http::HttpOptions o;
    o.limits.allow_head = true;
    return o;
  }();
  storage::StorageOptions storage;
  uint64_t meta_max_bytes = 0;  // annotations and UID/TS meta (MetaStore); 0 = unbounded
  ingest::IngestOptions ingest;
  QueryOptions query;
  RollupServerOptions rollup;
  TelnetOptions telnet;
  GraphiteOptions graphite;
  relay::RelayOptions relay;     // dir and log are filled in by the server
  LogOptions log;
  // The text of every key's value as last applied by DefaultOptions() and
  // SetOption() (defaults, then the file, then the command line), for GET
  // /api/config. Secrets are in here as given: mask before showing.
  std::map<std::string, std::string, std::less<>> values;
};

struct OptionSpec {
  std::string_view key;            // config-file key, e.g. "http.max_body_size"
  std::string_view default_value;  // in config syntax
  std::string_view help;           // one line
  Status (*apply)(std::string_view value, Options* options);
};

// Every option, in documentation order.
const std::vector<OptionSpec>& OptionTable();

// Options with every table default applied.
Options DefaultOptions();

// Sets one option by its config key. InvalidArgument names the key and says
// what is wrong with the value; NotFound for an unknown key.
Status SetOption(std::string_view key, std::string_view value, Options* options);

// Reads `key = value` lines ('#' starts a comment line; blank lines are
// ignored). Errors carry "<path>:<line>".
Status LoadConfigFile(const std::string& path, Options* options);

// The command-line flag of a key: "http.max_body_size" -> "--http-max-body-size".
std::string FlagForKey(std::string_view key);

enum class CliAction { kRun, kHelp, kVersion, kPrintConfig, kMan, kHealth };

// Parses argv: --config FILE is read first, then the other flags are applied
// over it. Flags are `--flag value` or `--flag=value`. Also --help,
// --version, --print-config, --man, and --health or --health=URL (the
// probe; the URL, if given, lands in options->health_url).
Status ParseCommandLine(int argc, const char* const* argv, Options* options, CliAction* action);

// The usage text (--help): every flag with its default and meaning.
std::string HelpText();
// An annotated config file listing every key with its default.
std::string DefaultConfigText();
// The sundiald(8) manual page in man(7) roff (--man), built from the same
// table; the package installs it, so it never drifts from the binary.
std::string ManPageText();

}  // namespace sundial::server
