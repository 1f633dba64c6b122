// `sundiald import`: bulk import of files, or migration from another server
// (cli_tools.h).
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "batch_sender.h"
#include "cli_tools.h"
#include "file_reader.h"
#include "import_report.h"
#include "import_target.h"
#include "sundial/ingest/import_parser.h"
#include "sundial/query/query_spec.h"
#include "sundial/query/time_util.h"

namespace sundial::server {

namespace {

constexpr char kImportUsage[] =
    "usage: sundiald import [--url http://HOST:PORT | --data-dir DIR] [--format auto|tsdb|put|json]\n"
    "                       [--max-errors N] [--connections 4] FILE...       (FILE - is stdin; .gz is decompressed)\n"
    "       sundiald import [--url URL | --data-dir DIR] --from http://HOST:PORT\n"
    "                       --metrics GLOB[,GLOB...] --start T [--end T] [--chunk 1d] [--state FILE]\n";

// Reads one file (plain or gzip, '-' = stdin) through the parser into sender.
Status ImportFile(const std::string& path, ingest::ImportFormat format, BatchSender* sender,
                  ImportReport* report) {
  FileReader reader;
  SUNDIAL_RETURN_IF_ERROR(reader.Open(path));
  ingest::ImportParser parser(format);
  ingest::ImportRecord record;
  const std::string source = path == "-" ? "<stdin>" : path;
  std::string block;
  Status status;
  for (bool more = true; more && status.ok();) {
    more = reader.Next(&block);
    if (more) parser.Feed(block);
    else parser.Finish();
    while (status.ok() && parser.Next(&record)) {
      if (record.ok) status = sender->Add(record.put, source, record.line);
      else report->Reject(source, record.line, record.error);
    }
    report->Progress(source, reader.offset(), reader.size());
  }
  if (status.ok()) status = reader.status();
  return status.ok() ? sender->Flush() : status;
}

Status ParseTime(const std::string& text, Timestamp* out) {
  const Timestamp now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  return query::ParseDateTime(text, now, query::TimeZone(), out);
}

Status ParseMigrateParams(const ToolArgs& args, MigrateParams* p) {
  p->from = args.Get("from");
  const std::string metrics = args.Get("metrics");
  if (metrics.empty()) return Status::InvalidArgument("--from needs --metrics GLOB[,GLOB...]");
  for (size_t b = 0; b <= metrics.size();) {
    size_t e = metrics.find(',', b);
    if (e == std::string::npos) e = metrics.size();
    if (e > b) p->patterns.push_back(metrics.substr(b, e - b));
    b = e + 1;
  }
  if (!args.Has("start")) return Status::InvalidArgument("--from needs --start");
  SUNDIAL_RETURN_IF_ERROR(ParseTime(args.Get("start"), &p->start_ms));
  SUNDIAL_RETURN_IF_ERROR(ParseTime(args.Get("end", "now"), &p->end_ms));
  if (p->end_ms < p->start_ms) return Status::InvalidArgument("--end is before --start");
  SUNDIAL_RETURN_IF_ERROR(query::ParseDuration(args.Get("chunk", "1d"), &p->chunk_ms));
  if (p->chunk_ms <= 0) return Status::InvalidArgument("--chunk must be positive");
  p->state_path = args.Get("state");
  return Status::OK();
}

}  // namespace

int RunImportCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::fputs(kImportUsage, stdout);
      return 0;
    }
  }
  ToolArgs args;
  Status s = ParseToolArgs(argc, argv,
                           {"url", "format", "max-errors", "from", "metrics", "start", "end",
                            "chunk", "state", "connections"},
                           &args);
  ingest::ImportFormat format = ingest::ImportFormat::kAuto;
  if (s.ok() && !ingest::ParseImportFormat(args.Get("format", "auto"), &format)) {
    s = Status::InvalidArgument("--format must be auto, tsdb, put or json");
  }
  if (s.ok() && args.Has("url") == args.data_dir_given) {
    s = Status::InvalidArgument("give exactly one of --url and --data-dir");
  }
  const bool migrate = args.Has("from");
  if (s.ok() && migrate == !args.positional.empty()) {
    s = Status::InvalidArgument(migrate ? "--from takes no files" : "no file to import");
  }
  MigrateParams mp;
  if (s.ok() && migrate) s = ParseMigrateParams(args, &mp);
  char* end = nullptr;
  const std::string max_errors_text = args.Get("max-errors", "100");
  const unsigned long long max_errors = std::strtoull(max_errors_text.c_str(), &end, 10);
  if (s.ok() && (end == max_errors_text.c_str() || *end != '\0')) {
    s = Status::InvalidArgument("--max-errors must be a number");
  }
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald import: %s\n%s", s.message().c_str(), kImportUsage);
    return 2;
  }
  const std::string conns_text = args.Get("connections", "4");
  const unsigned long long conns = std::strtoull(conns_text.c_str(), &end, 10);
  if (end == conns_text.c_str() || *end != '\0' || conns < 1 || conns > 64) {
    std::fprintf(stderr, "sundiald import: --connections must be 1..64\n%s", kImportUsage);
    return 2;
  }
  if (args.data_dir_given) {
    s = CheckToolDataDir(args.options.storage.data_dir);
    if (!s.ok()) {
      std::fprintf(stderr, "sundiald import: %s\n", s.message().c_str());
      return 2;
    }
  }
  RemoteOptions remote;
  remote.ingest.max_tags = args.options.ingest.max_tags;
  remote.ingest.allow_specialchars = args.options.ingest.allow_specialchars;
  std::vector<std::unique_ptr<PutTarget>> targets(args.data_dir_given ? 1 : conns);
  for (auto& target : targets) {
    s = args.data_dir_given ? NewLocalTarget(args.options, &target)
                            : NewRemoteTarget(args.Get("url"), remote, &target);
    if (!s.ok()) break;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald import: %s\n", s.ToString().c_str());
    return 3;
  }
  ImportReport report(max_errors, ::isatty(STDERR_FILENO) == 1);
  BatchSender sender(std::move(targets), &report);
  if (migrate) {
    s = Migrate(mp, &sender, &report);
  } else {
    for (const std::string& path : args.positional) {
      s = ImportFile(path, format, &sender, &report);
      if (!s.ok()) break;
    }
  }
  const Status finished = sender.Finish();
  if (s.ok()) s = finished;
  report.Summary();
  if (s.code() == Status::Code::kUnavailable) {
    std::fprintf(stderr,
                 "sundiald import: stopped: writes are refused (storage read-only: disk "
                 "full?): %s\nthe points counted above as imported are stored; free space, then "
                 "run the import again (points stored twice keep their value)\n",
                 s.message().c_str());
    return 4;
  }
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald import: stopped: %s\n", s.ToString().c_str());
    return 3;
  }
  return report.rejected() > 0 ? 1 : 0;
}

std::string ToolArgs::Get(const std::string& name, const std::string& def) const {
  for (auto it = flags.rbegin(); it != flags.rend(); ++it) {
    if (it->first == name) return it->second;
  }
  return def;
}

Status CheckToolDataDir(const std::string& dir) {
  auto holds_data = [](const std::string& d) {
    struct stat st;
    return ::stat((d + "/series.log").c_str(), &st) == 0 || ::stat((d + "/wal").c_str(), &st) == 0;
  };
  if (!holds_data(dir) && holds_data(dir + "/data")) {
    return Status::InvalidArgument(dir + " holds no data directory, but " + dir +
                                   "/data does (the .deb's data dir is /var/lib/sundial/data): "
                                   "use --data-dir " + dir + "/data");
  }
  return Status::OK();
}

bool ToolArgs::Has(const std::string& name) const {
  for (const auto& kv : flags) {
    if (kv.first == name) return true;
  }
  return false;
}

Status ParseToolArgs(int argc, char** argv, const std::vector<std::string>& own, ToolArgs* out) {
  std::vector<std::string> server_args = {"sundiald"};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      out->positional.push_back(arg);
      continue;
    }
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (i + 1 < argc) {
      value = argv[++i];
    } else {
      return Status::InvalidArgument("--" + name + " needs a value");
    }
    bool mine = false;
    for (const std::string& o : own) mine = mine || o == name;
    if (mine) {
      out->flags.emplace_back(name, value);
    } else {
      if (name == "data-dir") out->data_dir_given = true;
      server_args.push_back("--" + name + "=" + value);
    }
  }
  std::vector<const char*> ptrs;
  for (const std::string& a : server_args) ptrs.push_back(a.c_str());
  CliAction action = CliAction::kRun;
  SUNDIAL_RETURN_IF_ERROR(ParseCommandLine(static_cast<int>(ptrs.size()), ptrs.data(),
                                           &out->options, &action));
  return Status::OK();
}

}  // namespace sundial::server
