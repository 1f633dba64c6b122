#include "options.h"

#include <algorithm>
#include <limits>

#include "option_values.h"
#include "sundial/common/memory.h"

namespace sundial::server {

namespace {

using std::chrono::milliseconds;

constexpr uint64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
// Bodies are inflated with zlib, whose counters are 32-bit: stay below 4 GiB.
constexpr uint64_t kMaxBodyBytes = (4ull << 30) - 1;

Status Uint32(std::string_view v, uint64_t min, uint64_t max, uint32_t* out) {
  uint64_t x = 0;
  SUNDIAL_RETURN_IF_ERROR(ParseUint(v, min, max, &x));
  *out = static_cast<uint32_t>(x);
  return Status::OK();
}

Status SizeT(std::string_view v, uint64_t min, uint64_t max, size_t* out) {
  uint64_t x = 0;
  if (max > std::numeric_limits<size_t>::max()) max = std::numeric_limits<size_t>::max();
  SUNDIAL_RETURN_IF_ERROR(ParseBytes(v, min, max, &x));
  *out = static_cast<size_t>(x);
  return Status::OK();
}

Status SetIdleTimeout(std::string_view v, Options* o) {
  milliseconds d{0};
  SUNDIAL_RETURN_IF_ERROR(ParseDuration(v, &d));
  o->listener.idle_timeout = d;
  o->line.idle_timeout = d;
  o->http.idle_timeout = d;
  return Status::OK();
}

Status SetWriteTimeout(std::string_view v, Options* o) {
  milliseconds d{0};
  SUNDIAL_RETURN_IF_ERROR(ParseDuration(v, &d));
  o->line.write_timeout = d;
  o->http.write_timeout = d;
  return Status::OK();
}

Status SetWalSync(std::string_view v, Options* o) {
  if (v == "batch") {
    o->storage.wal_sync = storage::WalSyncMode::kEveryBatch;
  } else if (v == "none") {
    o->storage.wal_sync = storage::WalSyncMode::kNone;
  } else {
    uint64_t ms = 0;
    if (!ParseUint(v, 1, 3600 * 1000, &ms).ok()) {
      return Status::InvalidArgument("expected batch, none or an interval in ms (1..3600000), got",
                                     "\"" + std::string(v) + "\"");
    }
    o->storage.wal_sync = storage::WalSyncMode::kInterval;
    o->storage.wal_sync_interval_ms = static_cast<uint32_t>(ms);
  }
  return Status::OK();
}

Status SetLogLevel(std::string_view v, Options* o) {
  for (std::string_view l : {"trace", "debug", "info", "warn", "error", "critical", "off"}) {
    if (v == l) {
      o->log.level = std::string(v);
      return Status::OK();
    }
  }
  return Status::InvalidArgument(
      "expected trace, debug, info, warn, error, critical or off, got", "\"" + std::string(v) + "\"");
}

Status SetTimestampMs(std::string_view v, Timestamp* out) {
  milliseconds d{0};
  SUNDIAL_RETURN_IF_ERROR(ParseDuration(v, &d));
  *out = d.count();
  return Status::OK();
}

Status SetPositiveDuration(std::string_view v, milliseconds* out) {
  SUNDIAL_RETURN_IF_ERROR(ParseDuration(v, out));
  if (out->count() < 1) return Status::InvalidArgument("expected a duration above 0, got", v);
  return Status::OK();
}

// The table. Keep each help text to one line; it lands in --help, the
// config file and the README.
const std::vector<OptionSpec> kOptionTable = {
    {"port", "4242", "TCP port for both protocols (telnet-style lines and HTTP, told apart by the first line)",
     [](std::string_view v, Options* o) {
       uint64_t p = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseUint(v, 1, 65535, &p));
       o->listener.port = static_cast<uint16_t>(p);
       return Status::OK();
     }},
    {"bind", "0.0.0.0", "IP address to listen on (numeric; 127.0.0.1 for local only, :: for IPv6)",
     [](std::string_view v, Options* o) {
       o->listener.bind_address = std::string(v);
       return Status::OK();
     }},
    {"io_threads", "0", "I/O threads serving connections (0 = one per CPU core)",
     [](std::string_view v, Options* o) { return Uint32(v, 0, 1024, &o->io_threads); }},
    {"io_busy_poll_us", "50", "after network events an I/O thread polls this many microseconds for more before sleeping (0 = off; off with one CPU online)",
     [](std::string_view v, Options* o) { return Uint32(v, 0, 1000000, &o->io_busy_poll_us); }},
    {"max_connections", "1000", "open connections allowed; when full, the longest-idle one is closed for a new one, else the new one is (0 = no limit)",
     [](std::string_view v, Options* o) {
       uint64_t n = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseUint(v, 0, kMaxU32, &n));
       o->max_connections = static_cast<size_t>(n);
       return Status::OK();
     }},
    {"max_connections_per_address", "500", "open connections allowed from one client address; a reverse proxy or NAT puts many clients on one (0 = no limit)",
     [](std::string_view v, Options* o) {
       uint64_t n = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseUint(v, 0, kMaxU32, &n));
       o->max_connections_per_address = static_cast<size_t>(n);
       return Status::OK();
     }},
    {"idle_timeout", "5m", "close a connection with nothing in progress that sent and received nothing for this long (0 = never)",
     &SetIdleTimeout},
    {"write_timeout", "30s", "close a connection whose client takes no reply bytes for this long while a reply waits (0 = never)",
     &SetWriteTimeout},
    {"data_dir", "data", "directory holding all data; created if missing, locked against a second server",
     [](std::string_view v, Options* o) {
       if (v.empty()) return Status::InvalidArgument("data_dir must not be empty");
       o->storage.data_dir = std::string(v);
       return Status::OK();
     }},
    {"storage.partition_duration", "1d", "time span of one data partition file",
     [](std::string_view v, Options* o) {
       SUNDIAL_RETURN_IF_ERROR(SetTimestampMs(v, &o->storage.partition_duration_ms));
       if (o->storage.partition_duration_ms < 3600 * 1000) {
         return Status::InvalidArgument("partition duration must be at least 1h, got", v);
       }
       return Status::OK();
     }},
    {"storage.page_size", "512",
     "bytes per data page (a series fills one page at a time; bigger: fewer reads of page "
     "files, more memory per live series)",
     [](std::string_view v, Options* o) {
       uint64_t n = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseBytes(v, 128, 64 * 1024, &n));
       o->storage.page_size = static_cast<uint32_t>(n);
       return Status::OK();
     }},
    {"storage.head_memory", "0",
     "open pages of all series together; beyond it the largest are sealed early (0: no limit)",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, 1ull << 40, &o->storage.head_memory_bytes);
     }},
    {"storage.mmap_window", "8MiB", "page file records never straddle a multiple of this size (pages are read with one pread each)",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 64 * 1024, 1ull << 30, &o->storage.mmap_window_bytes);
     }},
    {"storage.retention", "0", "drop partitions older than this (0 = keep forever)",
     [](std::string_view v, Options* o) { return SetTimestampMs(v, &o->storage.retention_ms); }},
    {"storage.compact_after", "1h",
     "rewrite partitions that ended this long ago into compressed cold files (0 = never)",
     [](std::string_view v, Options* o) {
       return SetTimestampMs(v, &o->storage.compact_after_ms);
     }},
    {"storage.max_snapshots", "8",
     "POST /api/snapshot answers 409 while this many snapshots exist (0 = snapshots off)",
     [](std::string_view v, Options* o) {
       return Uint32(v, 0, 4096, &o->storage.max_snapshots);
     }},
    {"storage.max_series", "auto",
     "series that may exist; a point of a new series beyond them is refused like a bad point (auto = one per 2 KiB of physical memory; 0 = no limit)",
     [](std::string_view v, Options* o) {
       if (v == "auto") {
         o->storage.max_series = std::max<uint64_t>(PhysicalMemoryBytes() / 2048, 10000);
         return Status::OK();
       }
       return ParseUint(v, 0, 1ull << 32, &o->storage.max_series);
     }},
    {"storage.meta_max_bytes", "32MiB",
     "annotations and UID/TS meta are held in memory; changes beyond this much answer 507 (0 = no limit)",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, 1ull << 40, &o->meta_max_bytes);
     }},
    {"storage.max_open_files", "256",
     "file descriptors partition files may hold at once (idle ones are closed and reopened on use)",
     [](std::string_view v, Options* o) {
       return Uint32(v, 4, 1u << 20, &o->storage.max_open_files);
     }},
    {"storage.max_open_partitions", "256",
     "partitions kept open (index in memory, windows mapped); the least recently used closes",
     [](std::string_view v, Options* o) {
       return Uint32(v, 2, 1u << 20, &o->storage.max_open_partitions);
     }},
    {"storage.resume_free_bytes", "16MiB",
     "free space the data dir's file system needs before a read-only (disk full) server takes writes again",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, 1ull << 40, &o->storage.resume_free_bytes);
     }},
    {"storage.pending_budget", "8MiB",
     "sealed pages waiting to be written may take this much memory; beyond it writes wait for the disk (0 = no limit)",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, 1ull << 40, &o->storage.pending_budget_bytes);
     }},
    {"storage.ooo_park_budget", "4MiB",
     "memory for out-of-order pages kept open while a backfill writes to other partitions (0 = seal them at once)",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, 1ull << 40, &o->storage.ooo_park_budget_bytes);
     }},
    {"wal.sync", "1000", "when to fsync the write-ahead log: batch (every write), N (every N ms), none (never)",
     &SetWalSync},
    {"wal.segment_size", "64MiB", "size at which a new WAL segment file is started",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 64 * 1024, 1ull << 32, &o->storage.wal_segment_bytes);
     }},
    {"ingest.max_tags", "8", "most tags a data point may have (OpenTSDB: tsd.storage.max_tags)",
     [](std::string_view v, Options* o) {
       uint64_t n = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseUint(v, 1, 255, &n));
       o->ingest.max_tags = static_cast<size_t>(n);
       return Status::OK();
     }},
    {"ingest.allow_specialchars", "", "extra characters allowed in names besides a-z A-Z 0-9 - _ . / and letters",
     [](std::string_view v, Options* o) {
       o->ingest.allow_specialchars = std::string(v);
       return Status::OK();
     }},
    {"ingest.max_line_length", "64KiB", "longest telnet line; a longer one closes the connection",
     [](std::string_view v, Options* o) {
       return SizeT(v, 1024, 16ull << 20, &o->line.max_line_length);
     }},
    {"ingest.auto_create_metrics", "true", "accept points for new metric names (false: OpenTSDB's 'unknown metric' error)",
     [](std::string_view v, Options* o) { return ParseBool(v, &o->ingest.auto_create_metrics); }},
    {"influx.separator", ".", "InfluxDB line protocol: text between measurement and field in a metric name (cpu + usage_user -> cpu.usage_user)",
     [](std::string_view v, Options* o) {
       o->ingest.influx_separator = std::string(v);
       return Status::OK();
     }},
    {"telnet.reply_buffer", "256KiB", "reply bytes queued per telnet connection; error text beyond it is dropped, and commands wait while half of it is unsent",
     [](std::string_view v, Options* o) {
       return SizeT(v, 4096, 64ull << 20, &o->line.max_pending_reply);
     }},
    {"telnet.diediedie", "false", "allow the telnet 'diediedie' command to shut the server down",
     [](std::string_view v, Options* o) { return ParseBool(v, &o->telnet.diediedie); }},
    {"graphite.port", "0", "TCP port of the Graphite plaintext listener ('path value timestamp' lines; 2003 is usual; 0 = off)",
     [](std::string_view v, Options* o) {
       uint64_t p = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseUint(v, 0, 65535, &p));
       o->graphite.port = static_cast<uint16_t>(p);
       return Status::OK();
     }},
    {"graphite.bind", "", "IP address of the Graphite listener (empty = the same as bind)",
     [](std::string_view v, Options* o) {
       o->graphite.bind = std::string(v);
       return Status::OK();
     }},
    {"http.max_body_size", "64MiB", "largest request body (after decompression); larger ones get 413",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 1024, kMaxBodyBytes, &o->http.limits.max_body_bytes);
     }},
    {"http.max_pipelined", "16", "requests per connection awaiting a reply before reading pauses",
     [](std::string_view v, Options* o) {
       uint64_t n = 0;
       SUNDIAL_RETURN_IF_ERROR(ParseUint(v, 1, 1024, &n));
       o->http.max_in_flight = static_cast<size_t>(n);
       return Status::OK();
     }},
    {"http.request_timeout", "10s", "a request's head must arrive within this time of its first byte, else 408 and close (0 = no limit)",
     [](std::string_view v, Options* o) { return ParseDuration(v, &o->http.request_timeout); }},
    {"http.body_min_rate", "16KiB", "bytes per second a request body must average; each received byte extends request_timeout by 1/rate s (0 = no limit)",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, 1ull << 40, &o->http.body_min_rate);
     }},
    {"http.output_buffer", "512KiB", "reply bytes a connection may hold unsent; beyond it streamed replies pause and no new request starts",
     [](std::string_view v, Options* o) {
       return SizeT(v, 16 * 1024, 1ull << 30, &o->http.max_unsent);
     }},
    {"http.gzip_responses", "true", "gzip response bodies of 1 KiB or more when the client accepts gzip",
     [](std::string_view v, Options* o) { return ParseBool(v, &o->http.gzip_responses); }},
    {"http.cors_domains", "", "comma-separated origins allowed cross-origin requests, * for any (empty = CORS off)",
     [](std::string_view v, Options* o) {
       o->http.cors.domains.clear();
       while (!v.empty()) {
         const size_t comma = v.find(',');
         std::string_view d = v.substr(0, comma);
         v = comma == std::string_view::npos ? std::string_view() : v.substr(comma + 1);
         while (!d.empty() && d.front() == ' ') d.remove_prefix(1);
         while (!d.empty() && d.back() == ' ') d.remove_suffix(1);
         if (!d.empty()) o->http.cors.domains.emplace_back(d);
       }
       return Status::OK();
     }},
    {"http.cors_headers",
     "Authorization, Content-Type, Accept, Origin, User-Agent, DNT, Cache-Control, X-Mx-ReqToken, Keep-Alive, X-Requested-With, If-Modified-Since",
     "Access-Control-Allow-Headers sent with CORS replies",
     [](std::string_view v, Options* o) {
       o->http.cors.allow_headers = std::string(v);
       return Status::OK();
     }},
    {"query.threads", "2",
     "worker threads running queries (kept off the I/O threads); a query whose groups are a few "
     "series downsampled to few points each runs them on up to min(this, CPU cores) at once",
     [](std::string_view v, Options* o) { return Uint32(v, 1, 256, &o->query.threads); }},
    {"query.spare_threads", "16",
     "threads the query pool may add while streamed answers wait for clients that do not read, "
     "so that those clients do not hold up other queries (0 = never add any)",
     [](std::string_view v, Options* o) { return Uint32(v, 0, 256, &o->query.spare_threads); }},
    {"query.max_series", "100000", "most series one query may read (0 = no limit); over it: 413",
     [](std::string_view v, Options* o) {
       return ParseUint(v, 0, UINT64_MAX, &o->query.max_series);
     }},
    {"query.max_points", "100000000", "most raw points one query may read (0 = no limit); over it: 413",
     [](std::string_view v, Options* o) {
       return ParseUint(v, 0, UINT64_MAX, &o->query.max_points);
     }},
    {"query.deadline", "60s", "a query running longer is stopped and answered with an error (0 = none)",
     [](std::string_view v, Options* o) { return ParseDuration(v, &o->query.deadline); }},
    {"query.inline_max_points", "20000",
     "a /api/query reading at most this many raw points (and at most query.inline_max_series "
     "series) is answered on the I/O thread, without the hop to the query threads; a bigger "
     "one moves to them after that much work (0 = always use the query threads)",
     [](std::string_view v, Options* o) {
       return ParseUint(v, 0, UINT64_MAX, &o->query.inline_max_points);
     }},
    {"query.inline_max_series", "32", "most series of a query answered on the I/O thread",
     [](std::string_view v, Options* o) {
       return ParseUint(v, 0, UINT64_MAX, &o->query.inline_max_series);
     }},
    // Query limits (README "Query limits"). The defaults suit a 512 MiB
    // Raspberry Pi: with query.threads = 2 plus the inline path, three
    // queries at 64MiB each leave most memory to storage; 5M points are
    // about 100 MB of JSON and seconds of work there, far beyond what a
    // dashboard draws; 1 KiB regexps are OpenTSDB-sized.
    {"query.max_output_points", "5000000",
     "most data points one query may return (0 = no limit); a downsample whose bucket count "
     "(range / interval, per group) is over it is refused before reading: 413",
     [](std::string_view v, Options* o) {
       return ParseUint(v, 0, UINT64_MAX, &o->query.max_output_points);
     }},
    {"query.max_output_bytes", "128MiB", "most bytes of JSON one query may return (0 = no limit); over it: 413",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 0, UINT64_MAX, &o->query.max_output_bytes);
     }},
    {"query.max_memory", "64MiB",
     "most memory one query may hold for its series pipelines, the points they hold decoded and bucket values (0 = no limit); over it: 413",
     [](std::string_view v, Options* o) { return ParseBytes(v, 0, UINT64_MAX, &o->query.max_memory); }},
    {"query.max_regex_length", "1KiB", "longest regexp tag filter pattern (at most 64KiB); longer: 400",
     [](std::string_view v, Options* o) {
       return SizeT(v, 1, 64 * 1024, &o->query.max_regex_length);
     }},
    {"query.max_results", "100000",
     "most results of /api/suggest and /api/search/lookup (0 = no limit); a larger max or "
     "limit is lowered to it",
     [](std::string_view v, Options* o) {
       return ParseUint(v, 0, UINT64_MAX, &o->query.max_results);
     }},
    {"query.allow_delete", "false",
     "allow deleting data: the delete flag of /api/query and DELETE /api/series (README "
     "\"Deleting data\"); when false they answer 400",
     [](std::string_view v, Options* o) { return ParseBool(v, &o->query.allow_delete); }},
    {"query.cache_size", "8MiB",
     "memory for downsampled buckets kept between queries, so that repeated and sliding "
     "dashboard queries read only what changed (0 = off)",
     [](std::string_view v, Options* o) { return SizeT(v, 0, 1ull << 40, &o->query.cache_bytes); }},
    {"rollup.enabled", "true", "keep hourly rollups (count/sum/min/max/first/last) and answer whole-hour downsampling from them",
     [](std::string_view v, Options* o) { return ParseBool(v, &o->rollup.enabled); }},
    {"rollup.build_interval", "1m", "how often the rollup builder looks for closed hours and for hours that got late points",
     [](std::string_view v, Options* o) {
       milliseconds d{0};
       SUNDIAL_RETURN_IF_ERROR(ParseDuration(v, &d));
       if (d.count() < 10 || d.count() > 24 * 3600 * 1000) {
         return Status::InvalidArgument("rollup build interval must be 10ms..1d, got", v);
       }
       o->rollup.store.build_interval_ms = static_cast<uint32_t>(d.count());
       return Status::OK();
     }},
    {"rollup.grace", "10m", "an hour is rolled up this long after it ended; points arriving later are folded in by a rebuild",
     [](std::string_view v, Options* o) { return SetTimestampMs(v, &o->rollup.store.grace_ms); }},
    {"rollup.batch", "6h",
     "new hours are rolled up in batches this long (whole hours, 1h..24h, from midnight UTC): "
     "longer means fewer SD-card writes, and the newest hours read raw for longer",
     [](std::string_view v, Options* o) {
       milliseconds d{0};
       SUNDIAL_RETURN_IF_ERROR(ParseDuration(v, &d));
       const int64_t ms = d.count();
       if (ms < rollup::kHourMs || ms > rollup::kDayMs || ms % rollup::kHourMs != 0) {
         return Status::InvalidArgument("rollup batch must be whole hours, 1h..24h, got", v);
       }
       o->rollup.store.batch_ms = ms;
       return Status::OK();
     }},
    // The relay (README "Scaling out"): forwards what the WAL accepted.
    {"relay.targets", "",
     "comma-separated upstream URLs to forward every accepted point to: telnet://h:p, "
     "http://h:p (/api/put), remote-write://h:p/path, influx://h:p/write?db=NAME (empty = off); "
     "telnet://h:p?ack=version waits for the reply to a version command after each batch "
     "(OpenTSDB, sundiald), so points an upstream that dies had not read are sent again",
     [](std::string_view v, Options* o) { return relay::ParseTargetList(v, &o->relay.targets); }},
    {"relay.max_pending_bytes", "1GiB",
     "per target, unsent WAL kept on disk; beyond it the oldest unsent segments are dropped and counted",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 1024, 1ull << 50, &o->relay.max_pending_bytes);
     }},
    {"relay.batch_size", "1000", "points per request to an upstream (a target's batch= overrides it)",
     [](std::string_view v, Options* o) { return Uint32(v, 1, 1000000, &o->relay.batch_points); }},
    {"relay.timeout", "10s", "connect, send and reply time allowed per request to an upstream",
     [](std::string_view v, Options* o) { return SetPositiveDuration(v, &o->relay.timeout); }},
    {"relay.max_backoff", "30s", "longest wait between retries to an unreachable or failing upstream",
     [](std::string_view v, Options* o) { return SetPositiveDuration(v, &o->relay.max_backoff); }},
    {"log.level", "info", "log level: trace, debug, info, warn, error, critical, off", &SetLogLevel},
    {"log.file", "", "also log to this file, rotated by size (empty = stderr only); SIGHUP reopens it",
     [](std::string_view v, Options* o) {
       o->log.file = std::string(v);
       return Status::OK();
     }},
    {"log.file_max_size", "16MiB", "size at which the log file is rotated",
     [](std::string_view v, Options* o) {
       return ParseBytes(v, 64 * 1024, 1ull << 32, &o->log.file_max_bytes);
     }},
    {"log.file_count", "4", "rotated log files kept",
     [](std::string_view v, Options* o) { return Uint32(v, 1, 100, &o->log.file_count); }},
};

}  // namespace

const std::vector<OptionSpec>& OptionTable() { return kOptionTable; }

Options DefaultOptions() {
  Options o;
  for (const OptionSpec& spec : kOptionTable) {
    Status s = spec.apply(spec.default_value, &o);
    (void)s;  // every default parses (checked by options_test)
    o.values[std::string(spec.key)] = std::string(spec.default_value);
  }
  return o;
}

Status SetOption(std::string_view key, std::string_view value, Options* options) {
  for (const OptionSpec& spec : kOptionTable) {
    if (spec.key != key) continue;
    SUNDIAL_RETURN_IF_ERROR(spec.apply(value, options).WithContext(std::string(key)));
    options->values[std::string(key)] = std::string(value);
    return Status::OK();
  }
  return Status::NotFound("unknown option", key);
}

std::string FlagForKey(std::string_view key) {
  std::string flag = "--";
  for (char c : key) flag += (c == '.' || c == '_') ? '-' : c;
  return flag;
}

}  // namespace sundial::server
