// Telnet read path benchmark: how much server CPU the network layer and the
// command dispatch cost per `put` line, without parsing or storage.
//
// A forked client process opens --connections loopback connections and
// sends --lines put lines in total (DevOps-like, ~170 bytes each) as fast as
// it can. The server runs the real Listener, LineConnection, LineFramer and
// TelnetSession; its PutLineSink only walks the lines. The figures are
// server-process CPU (getrusage, the client is another process) and wall
// time.
//
//   build/bench/net_telnet_bench [--connections 4] [--lines 20000000] [--io-threads 2]
//                                [--read-size 65536]
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "server/options.h"
#include "server/telnet_session.h"
#include "sundial/net/io_context_pool.h"
#include "sundial/net/line_connection.h"
#include "sundial/net/listener.h"

namespace {

using namespace sundial;

std::atomic<uint64_t> g_lines{0};  // bench-only counter shared with sinks

class CountingSink : public server::PutLineSink {
 public:
  size_t HandlePutLines(std::string_view lines, net::ReplyBuffer*) override {
    size_t pos = 0;
    uint64_t n = 0;
    while (pos < lines.size() && server::IsPutLine(lines.substr(pos))) {
      const void* nl = memchr(lines.data() + pos, '\n', lines.size() - pos);
      pos = static_cast<size_t>(static_cast<const char*>(nl) - lines.data()) + 1;
      ++n;
    }
    g_lines.fetch_add(n, std::memory_order_relaxed);
    return pos;
  }
};

class Factory : public net::SessionFactory {
 public:
  Factory(server::ServiceContext* ctx, net::ConnectionManager* mgr, net::LineOptions opt)
      : ctx_(ctx), mgr_(mgr), opt_(opt) {}
  void StartSession(net::Protocol, asio::ip::tcp::socket socket,
                    std::string_view first) override {
    auto h = std::make_unique<server::TelnetSession>(ctx_, std::make_unique<CountingSink>());
    std::make_shared<net::LineConnection>(std::move(socket), std::move(h), opt_, mgr_)
        ->Start(first);
  }

 private:
  server::ServiceContext* ctx_;
  net::ConnectionManager* mgr_;
  net::LineOptions opt_;
};

std::string MakeBlock(size_t lines) {
  std::string out;
  char buf[256];
  for (size_t i = 0; i < lines; ++i) {
    snprintf(buf, sizeof(buf),
             "put cpu.usage_user.%zu 17000%05zu %zu.%02zu hostname=host_%zu region=eu-west-1 "
             "datacenter=eu-west-1a rack=%zu os=Ubuntu16.04LTS arch=x64 team=SF service=%zu\n",
             i % 101, i % 100000, i % 97, i % 100, i % 100, i % 40, i % 20);
    out += buf;
  }
  return out;
}

void RunClients(uint16_t port, int connections, uint64_t total_lines) {
  const std::string block = MakeBlock(10000);
  const uint64_t per_conn = total_lines / connections;
  std::vector<std::thread> threads;
  for (int c = 0; c < connections; ++c) {
    threads.emplace_back([&, c] {
      (void)c;
      int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_port = htons(port);
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) _exit(3);
      for (uint64_t sent = 0; sent < per_conn; sent += 10000) {
        size_t off = 0;
        while (off < block.size()) {
          ssize_t n = write(fd, block.data() + off, block.size() - off);
          if (n <= 0) _exit(4);
          off += static_cast<size_t>(n);
        }
      }
      shutdown(fd, SHUT_WR);
      char b[4096];
      while (read(fd, b, sizeof(b)) > 0) {
      }
      close(fd);
    });
  }
  for (auto& t : threads) t.join();
}

double CpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  int connections = 4;
  uint64_t lines = 20000000;
  size_t io_threads = 2;
  size_t read_size = 64 * 1024;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--connections") connections = std::atoi(argv[i + 1]);
    if (a == "--lines") lines = std::strtoull(argv[i + 1], nullptr, 10);
    if (a == "--io-threads") io_threads = std::strtoul(argv[i + 1], nullptr, 10);
    if (a == "--read-size") read_size = std::strtoul(argv[i + 1], nullptr, 10);
  }
  lines = lines / (10000ull * connections) * 10000ull * connections;

  server::Options options = server::DefaultOptions();
  options.line.read_size = read_size;
  server::ServerStats stats;
  server::ServiceContext ctx;
  ctx.options = &options;
  ctx.stats = &stats;
  net::ConnectionManager manager(0);
  net::IoContextPool pool(io_threads);
  Factory factory(&ctx, &manager, options.line);
  net::ListenerOptions lo;
  lo.bind_address = "127.0.0.1";
  lo.port = 0;
  net::Listener listener(lo, &pool, &manager, &factory);
  if (!listener.Start().ok()) return 1;

  const pid_t child = fork();  // before any thread exists
  if (child == 0) {
    RunClients(listener.port(), connections, lines);
    _exit(0);
  }
  const double cpu0 = CpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  pool.Start();
  while (g_lines.load() < lines) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = CpuSeconds() - cpu0;
  int status = 0;
  listener.Stop();
  manager.StopAll();
  waitpid(child, &status, 0);
  pool.Stop();
  pool.Join();
  const double bytes = static_cast<double>(lines) * (MakeBlock(10000).size() / 10000.0);
  printf("telnet read path: %d connections, %zu I/O threads, %zu-byte reads, %llu lines (%.0f MB)\n",
         connections, pool.size(), read_size, static_cast<unsigned long long>(lines), bytes / 1e6);
  printf("  wall %.2f s: %.2f M lines/s, %.0f MB/s\n", wall, lines / wall / 1e6,
         bytes / wall / 1e6);
  printf("  server CPU %.2f s: %.3f us per line\n", cpu, cpu * 1e6 / lines);
  return 0;
}
