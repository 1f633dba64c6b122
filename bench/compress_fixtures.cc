#include "compress_fixtures.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace sundial::bench {
namespace {

// splitmix64: small, fast and the same everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform integer in [lo, hi].
  int64_t Range(int64_t lo, int64_t hi) {
    return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo + 1));
  }
  // Uniform double in [0, 1) with 53 random bits.
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_;
};

constexpr Timestamp kStart = 1700000000000;  // 2023-11-14, whole seconds
constexpr Timestamp kStep = 10000;

// A double the way a text parser yields "cents / 100" (e.g. 12.34).
double Cents(int64_t c) { return static_cast<double>(c) / 100.0; }

Fixture Counter(size_t n) {
  Fixture f{"counter-10s-int", {{}}};
  Rng r(1);
  int64_t v = 1000000;
  for (size_t i = 0; i < n; ++i) {
    v += r.Range(0, 200);
    f.series[0].push_back({kStart + static_cast<Timestamp>(i) * kStep, Value::Int(v)});
  }
  return f;
}

Fixture Decimal2(size_t n) {
  Fixture f{"walk-2-decimals", {{}}};
  Rng r(2);
  int64_t cents = 2000;
  for (size_t i = 0; i < n; ++i) {
    cents += r.Range(-50, 50);
    f.series[0].push_back({kStart + static_cast<Timestamp>(i) * kStep, Value::Float(Cents(cents))});
  }
  return f;
}

Fixture FullFloat(size_t n) {
  Fixture f{"walk-full-float", {{}}};
  Rng r(3);
  double v = 100.0;
  for (size_t i = 0; i < n; ++i) {
    v += r.Unit() * 2 - 1;
    f.series[0].push_back({kStart + static_cast<Timestamp>(i) * kStep, Value::Float(v)});
  }
  return f;
}

Fixture Constant(size_t n) {
  Fixture f{"constant", {{}}};
  for (size_t i = 0; i < n; ++i) {
    f.series[0].push_back({kStart + static_cast<Timestamp>(i) * kStep, Value::Float(42.5)});
  }
  return f;
}

// Millisecond timestamps: 10 s +- up to 1 s of jitter, and a gap now and then.
Fixture Irregular(size_t n) {
  Fixture f{"irregular-ms-ts", {{}}};
  Rng r(5);
  Timestamp t = kStart + 123;
  int64_t v = 500;
  for (size_t i = 0; i < n; ++i) {
    t += kStep + r.Range(-1000, 1000);
    if (r.Range(0, 99) == 0) t += r.Range(0, 600000);
    v += r.Range(-5, 5);
    f.series[0].push_back({t, Value::Int(v)});
  }
  return f;
}

// One host's ten metrics, like a collector agent reports them every 10 s.
void AddHost(Rng* r, size_t points, Fixture* f) {
  std::vector<std::vector<Sample>> s(10);
  int64_t mem = r->Range(1, 8) << 30, net = 0, disk = r->Range(100, 900) << 30;
  int64_t load = r->Range(0, 400), temp = r->Range(300, 700), idle = 9000;
  const int64_t total = r->Range(8, 64) << 30;
  double latency = 20 + r->Unit() * 10;
  for (size_t i = 0; i < points; ++i) {
    const Timestamp t = kStart + static_cast<Timestamp>(i) * kStep;
    idle = std::min<int64_t>(10000, std::max<int64_t>(0, idle + r->Range(-300, 300)));
    load = std::max<int64_t>(0, load + r->Range(-20, 20));
    temp += r->Range(-3, 3);
    mem = std::max<int64_t>(0, mem + 4096 * r->Range(-500, 500));
    net += r->Range(0, 5000000);
    disk -= 4096 * r->Range(0, 10);
    latency = std::max(0.1, latency + (r->Unit() - 0.5));
    s[0].push_back({t, Value::Float(Cents(idle))});         // cpu idle %
    s[1].push_back({t, Value::Float(Cents(10000 - idle))});  // cpu used %
    s[2].push_back({t, Value::Float(Cents(load))});          // load average
    s[3].push_back({t, Value::Int(mem)});                    // memory used
    s[4].push_back({t, Value::Int(total)});                  // memory total
    s[5].push_back({t, Value::Int(net)});                    // bytes sent
    s[6].push_back({t, Value::Int(disk)});                   // disk free
    s[7].push_back({t, Value::Int(static_cast<int64_t>(i) * 10)});  // uptime s
    s[8].push_back({t, Value::Float(static_cast<double>(temp) / 10)});  // temp
    s[9].push_back({t, Value::Float(latency)});              // latency ms
  }
  for (auto& x : s) f->series.push_back(std::move(x));
}

Fixture DevOps(size_t n) {
  Fixture f{"devops-mix", {}};
  Rng r(6);
  const size_t hosts = 100;
  for (size_t h = 0; h < hosts; ++h) AddHost(&r, n / (hosts * 10), &f);
  return f;
}

}  // namespace

std::vector<Fixture> MakeFixtures(size_t n) {
  std::vector<Fixture> out;
  out.push_back(Counter(n));
  out.push_back(Decimal2(n));
  out.push_back(FullFloat(n));
  out.push_back(Constant(n));
  out.push_back(Irregular(n));
  out.push_back(DevOps(n));
  return out;
}

}  // namespace sundial::bench
