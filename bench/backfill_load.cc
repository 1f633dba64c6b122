// backfill_load: an out-of-order history backfill in the shape of the
// IoTDB benchmark, sent over telnet `put`.
//
// D devices × S sensors (one series each: metric s<k>, tag device=d<i>),
// one point every --interval seconds from --start (1973-01-01 by default),
// --points points in all. Each device has its own connection and timeline,
// cut into slots of --batch steps. The sender walks the timeline forward
// and holds back a share --ooo of the slots (0.5: every other one); before
// each slot it sends, with probability --mix it sends instead one held-back
// slot picked at random, and once the walk is done it sends the rest in
// random order. So about half of the points go back in time, some by a
// little and many by days, into every partition the history spans. Every
// point is sent exactly once: nothing overwrites.
//
// Each connection ends with `version`, which the server answers only after
// every line before it was applied, so the printed rate is of applied
// points. Values are 2-decimal random walks (sensor-like).
//
//   backfill_load --port=4242 [--points=5000000 --devices=5 --sensors=10
//                  --interval=5 --start=94694400 --batch=100 --ooo=0.5
//                  --mix=0.25 --seed=1]
//
// Prints: the seed, the time span of the data, points/s.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Args {
  int port = 4242;
  uint64_t points = 5000000;
  uint32_t devices = 5;
  uint32_t sensors = 10;
  int64_t interval_s = 5;
  int64_t start_s = 94694400;  // 1973-01-01T00:00:00Z
  uint32_t batch = 100;
  double ooo = 0.5;   // share of the slots held back and sent late
  double mix = 0.25;  // chance that a send, while the walk goes on, is a late one
  uint64_t seed = 1;
};

bool ParseArgs(int argc, char** argv, Args* a) {
  std::map<std::string, std::string> kv;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    const size_t eq = s.find('=');
    if (s.rfind("--", 0) != 0 || eq == std::string::npos) {
      std::fprintf(stderr, "bad argument %s (want --key=value)\n", s.c_str());
      return false;
    }
    kv[s.substr(2, eq - 2)] = s.substr(eq + 1);
  }
  auto num = [&](const char* k, auto* out) {
    auto it = kv.find(k);
    if (it == kv.end()) return;
    *out = static_cast<std::remove_pointer_t<decltype(out)>>(std::strtod(it->second.c_str(), nullptr));
    kv.erase(it);
  };
  num("port", &a->port);
  num("points", &a->points);
  num("devices", &a->devices);
  num("sensors", &a->sensors);
  num("interval", &a->interval_s);
  num("start", &a->start_s);
  num("batch", &a->batch);
  num("ooo", &a->ooo);
  num("mix", &a->mix);
  num("seed", &a->seed);
  if (!kv.empty()) {
    std::fprintf(stderr, "unknown argument --%s\n", kv.begin()->first.c_str());
    return false;
  }
  if (a->devices == 0 || a->sensors == 0 || a->batch == 0 || a->interval_s <= 0 ||
      !(a->ooo >= 0 && a->ooo <= 1) || !(a->mix >= 0 && a->mix < 1)) {
    std::fprintf(stderr,
                 "--devices, --sensors, --batch, --interval must be > 0, --ooo in [0,1], "
                 "--mix in [0,1)\n");
    return false;
  }
  return true;
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, const std::string& buf) {
  size_t off = 0;
  while (off < buf.size()) {
    const ssize_t n = send(fd, buf.data() + off, buf.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

void AppendUint(std::string* out, uint64_t v) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  while (n > 0) out->push_back(tmp[--n]);
}

// Sends one device's timeline: steps points per sensor. False on a socket error.
bool RunDevice(const Args& a, uint32_t device, uint64_t steps, std::string* error) {
  const int fd = Connect(a.port);
  if (fd < 0) {
    *error = "connect: " + std::string(std::strerror(errno));
    return false;
  }
  std::mt19937_64 rng(a.seed * 1000003 + device);
  std::uniform_real_distribution<double> coin(0, 1);
  std::vector<int64_t> walk(a.sensors);  // value in hundredths, per sensor
  for (uint32_t k = 0; k < a.sensors; ++k) walk[k] = 2000 + static_cast<int64_t>(rng() % 1000);
  const uint64_t slots = (steps + a.batch - 1) / a.batch;
  std::vector<uint64_t> held;  // slots held back, sent later out of order
  uint64_t next = 0;           // the forward position
  // Of every 1/ooo slots the walk reaches, one is held back (ooo = 0.5:
  // every other one).
  const uint64_t hold_every = a.ooo > 0 ? static_cast<uint64_t>(1.0 / a.ooo + 0.5) : 0;
  std::string buf;
  buf.reserve(1 << 17);
  const std::string tag = " device=d" + std::to_string(device) + "\n";
  auto send_slot = [&](uint64_t slot) {
    const uint64_t first = slot * a.batch;
    const uint64_t last = std::min<uint64_t>(first + a.batch, steps);
    for (uint64_t step = first; step < last; ++step) {
      const uint64_t ts = static_cast<uint64_t>(a.start_s + static_cast<int64_t>(step) * a.interval_s);
      for (uint32_t k = 0; k < a.sensors; ++k) {
        walk[k] += static_cast<int64_t>(rng() % 21) - 10;
        if (walk[k] < 0) walk[k] = -walk[k];
        buf.append("put s");
        AppendUint(&buf, k);
        buf.push_back(' ');
        AppendUint(&buf, ts);
        buf.push_back(' ');
        AppendUint(&buf, static_cast<uint64_t>(walk[k]) / 100);
        buf.push_back('.');
        const uint64_t cents = static_cast<uint64_t>(walk[k]) % 100;
        buf.push_back(static_cast<char>('0' + cents / 10));
        buf.push_back(static_cast<char>('0' + cents % 10));
        buf.append(tag);
      }
      if (buf.size() >= (1 << 16)) {
        if (!SendAll(fd, buf)) return false;
        buf.clear();
      }
    }
    return true;
  };
  bool ok = true;
  while (ok && (next < slots || !held.empty())) {
    if (!held.empty() && (next >= slots || coin(rng) < a.mix)) {
      const size_t i = static_cast<size_t>(rng() % held.size());
      const uint64_t slot = held[i];
      held[i] = held.back();
      held.pop_back();
      ok = send_slot(slot);
    } else {
      ok = send_slot(next++);
      if (hold_every > 0 && next < slots && next % hold_every == hold_every - 1) {
        held.push_back(next++);
      }
    }
  }
  buf.append("version\n");
  ok = ok && SendAll(fd, buf);
  // `version` answers after every line before it was applied.
  char reply[4096];
  bool answered = false;
  while (ok) {
    const ssize_t n = recv(fd, reply, sizeof(reply), 0);
    if (n <= 0) break;
    answered = true;
    if (std::memchr(reply, '\n', static_cast<size_t>(n)) != nullptr) break;
  }
  close(fd);
  if (!ok || !answered) *error = "send or version reply failed";
  return ok && answered;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!ParseArgs(argc, argv, &a)) return 2;
  const uint64_t series = uint64_t{a.devices} * a.sensors;
  const uint64_t steps = a.points / series;
  const int64_t span_s = static_cast<int64_t>(steps) * a.interval_s;
  std::printf("seed %llu: %llu series, %llu points each, %lld s apart from %lld, span %.1f days\n",
              static_cast<unsigned long long>(a.seed), static_cast<unsigned long long>(series),
              static_cast<unsigned long long>(steps), static_cast<long long>(a.interval_s),
              static_cast<long long>(a.start_s), static_cast<double>(span_s) / 86400.0);
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  std::vector<std::string> errors(a.devices);
  std::vector<char> oks(a.devices, 0);
  for (uint32_t d = 0; d < a.devices; ++d) {
    threads.emplace_back([&, d] { oks[d] = RunDevice(a, d, steps, &errors[d]) ? 1 : 0; });
  }
  for (auto& t : threads) t.join();
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (uint32_t d = 0; d < a.devices; ++d) {
    if (!oks[d]) {
      std::fprintf(stderr, "device %u: %s\n", d, errors[d].c_str());
      return 1;
    }
  }
  const double total = static_cast<double>(steps * series);
  std::printf("applied %.0f points in %.2f s: %.0f points/s\n", total, secs, total / secs);
  return 0;
}
