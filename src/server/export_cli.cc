// `sundiald export`: streams an export to stdout from a running server
// (GET /api/export) or from a stopped server's data directory (cli_tools.h).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string_view>

#include "cli_tools.h"
#include "data_dir_lock.h"
#include "http_client.h"
#include "sundial/query/export.h"
#include "sundial/storage/storage.h"

namespace sundial::server {

namespace {

constexpr char kExportUsage[] =
    "usage: sundiald export (--url http://HOST:PORT | --data-dir DIR) [--format put|json|csv]\n"
    "                       [--start T] [--end T] METRIC_OR_EXPR... > FILE\n"
    "  METRIC_OR_EXPR: a metric name or glob (cpu.*), or an m-expression (sum:cpu{host=*})\n";

// An argument with ':' or '{' is an m-expression, anything else a metric
// name or glob.
bool IsExpression(const std::string& arg) {
  return arg.find(':') != std::string::npos || arg.find('{') != std::string::npos;
}

class StdoutSink final : public query::ChunkSink {
 public:
  bool Write(std::string&& chunk) override {
    return std::fwrite(chunk.data(), 1, chunk.size(), stdout) == chunk.size();
  }
};

int ExportLocal(const ToolArgs& args, const query::ParamList& params) {
  const Timestamp now = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  query::ExportRequest req;
  Status s = query::ParseExportParams(params, now, &req);
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald export: %s\n", s.message().c_str());
    return 2;
  }
  DataDirLock lock;
  std::unique_ptr<storage::Storage> storage;
  s = lock.Acquire(args.options.storage.data_dir);
  if (s.ok()) s = storage::Storage::Open(args.options.storage, &storage);
  StdoutSink sink;
  if (s.ok()) s = query::Export(storage.get(), query::QueryLimits{}, req, &sink);
  if (std::fflush(stdout) != 0 && s.ok()) s = Status::IOError("stdout", "write failed");
  if (!s.ok()) {
    std::string message, details;
    query::SplitErrorDetails(s.ToString(), &message, &details);
    std::fprintf(stderr, "sundiald export: %s\n", message.c_str());
    return 3;
  }
  return 0;
}

int ExportRemote(const ToolArgs& args, const query::ParamList& params) {
  HttpUrl url;
  Status s = ParseToolUrl(args.Get("url"), &url);
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald export: %s\n", s.ToString().c_str());
    return 2;
  }
  std::string path = "/api/export";
  for (size_t i = 0; i < params.size(); ++i) {
    path += (i == 0 ? "?" : "&") + params[i].first + "=" + UrlEncode(params[i].second);
  }
  int code = 0;
  std::string error_body;
  bool write_failed = false;
  s = HttpGet(url, path, std::chrono::milliseconds(120000), &code, [&](std::string_view piece) {
    if (code != 200) {
      if (error_body.size() < 4096) error_body.append(piece);
      return true;
    }
    write_failed = std::fwrite(piece.data(), 1, piece.size(), stdout) != piece.size();
    return !write_failed;
  });
  if (std::fflush(stdout) != 0) write_failed = true;
  if (s.ok() && write_failed) s = Status::IOError("stdout", "write failed");
  if (s.ok() && code != 200) s = Status::IOError("server answered " + std::to_string(code), error_body);
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald export: %s\n", s.ToString().c_str());
    return 3;
  }
  return 0;
}

}  // namespace

int RunExportCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::fputs(kExportUsage, stdout);
      return 0;
    }
  }
  ToolArgs args;
  Status s = ParseToolArgs(argc, argv, {"url", "format", "start", "end"}, &args);
  if (s.ok() && args.Has("url") == args.data_dir_given) {
    s = Status::InvalidArgument("give exactly one of --url and --data-dir");
  }
  if (s.ok() && args.positional.empty()) s = Status::InvalidArgument("nothing to export");
  if (s.ok() && args.data_dir_given) s = CheckToolDataDir(args.options.storage.data_dir);
  if (!s.ok()) {
    std::fprintf(stderr, "sundiald export: %s\n%s", s.message().c_str(), kExportUsage);
    return 2;
  }
  query::ParamList params = {{"start", args.Get("start", "0")},
                             {"format", args.Get("format", "put")}};
  if (args.Has("end")) params.emplace_back("end", args.Get("end"));
  for (const std::string& a : args.positional) {
    if (!IsExpression(a)) params.emplace_back("metric", a);
    else params.emplace_back("m", a.find(':') == std::string::npos ? "none:" + a : a);
  }
  return args.data_dir_given ? ExportLocal(args, params) : ExportRemote(args, params);
}

}  // namespace sundial::server
