// Compression benchmark: bytes per point and encode/decode time per point of
// Sundial's page codec against plain Gorilla (compress_gorilla.h), on the
// deterministic fixtures of compress_fixtures.h.
//
// Usage: compress_page_bench [--points N] [--page-size B] [--reps R] [--only NAME]
//                            [--value-dod 0|1]
// Prints a Markdown table. Bytes are the pages' used bytes, headers included.
// Times are thread CPU time and wall time, each the best of R runs, with the
// load average at start (the machine may be shared); encoding includes
// copying each sealed page out, decoding walks every point (through
// PageIterator, and through PageDecoder's batch API). Every run is checked
// bit-exact.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "compress_fixtures.h"
#include "compress_gorilla.h"
#include "sundial/common/coding.h"
#include "sundial/compress/page_builder.h"
#include "sundial/compress/page_decoder.h"
#include "sundial/compress/page_iterator.h"

namespace sundial::bench {
namespace {

// Thread CPU time: the machine is shared, and wall time would count other
// processes' slices. Both are printed.
double CpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
double WallSeconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The 1-minute load average, or -1 when unknown.
double LoadAverage() {
  double load[1];
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

// Sealed pages, back to back in one buffer.
struct PageSet {
  std::string bytes;
  std::vector<std::pair<uint32_t, uint32_t>> pages;  // offset, size
  void Add(std::string_view p) {
    pages.emplace_back(static_cast<uint32_t>(bytes.size()), static_cast<uint32_t>(p.size()));
    bytes.append(p);
  }
  std::string_view Get(size_t i) const {
    return std::string_view(bytes).substr(pages[i].first, pages[i].second);
  }
};

void EncodeSundial(const Fixture& f, uint32_t page_size, bool value_dod, PageSet* out) {
  out->bytes.clear();
  out->pages.clear();
  compress::PageBuilder b(page_size, value_dod);
  for (const auto& series : f.series) {
    for (const Sample& s : series) {
      if (!b.Append(s.t, s.v)) {
        out->Add(b.data());
        b.Reset();
        if (!b.Append(s.t, s.v)) std::abort();
      }
    }
    if (!b.empty()) out->Add(b.data());
    b.Reset();
  }
}

void EncodeGorilla(const Fixture& f, uint32_t page_size, PageSet* out) {
  out->bytes.clear();
  out->pages.clear();
  GorillaPage b(page_size);
  for (const auto& series : f.series) {
    for (const Sample& s : series) {
      if (!b.Append(s.t, s.v.AsDouble())) {
        out->Add(b.data());
        b.Reset();
        if (!b.Append(s.t, s.v.AsDouble())) std::abort();
      }
    }
    if (b.count() != 0) out->Add(b.data());
    b.Reset();
  }
}

uint64_t DecodeSundial(const PageSet& ps) {
  uint64_t sink = 0;
  compress::PageIterator it;
  for (size_t i = 0; i < ps.pages.size(); ++i) {
    it.Reset(ps.Get(i));
    while (it.Next()) {
      const Value v = it.v();
      sink += static_cast<uint64_t>(it.t()) ^
              (v.is_int() ? static_cast<uint64_t>(v.int_value()) : DoubleToBits(v.float_value()));
    }
    if (!it.status().ok()) std::abort();
  }
  return sink;
}

// The batch API under PageIterator: whole pages into arrays.
uint64_t DecodeSundialBatch(const PageSet& ps) {
  uint64_t sink = 0;
  compress::PageDecoder d;
  std::vector<Timestamp> t(compress::kMaxPointsPerPage);
  std::vector<Value> v(compress::kMaxPointsPerPage);
  for (size_t i = 0; i < ps.pages.size(); ++i) {
    d.Reset(ps.Get(i));
    const uint32_t n = d.Decode(t.data(), v.data(), compress::kMaxPointsPerPage);
    if (!d.status().ok()) std::abort();
    for (uint32_t j = 0; j < n; ++j) {
      sink += static_cast<uint64_t>(t[j]) ^ (v[j].is_int() ? static_cast<uint64_t>(v[j].int_value())
                                                          : DoubleToBits(v[j].float_value()));
    }
  }
  return sink;
}

uint64_t DecodeGorilla(const PageSet& ps) {
  uint64_t sink = 0;
  for (size_t i = 0; i < ps.pages.size(); ++i) {
    GorillaReader r(ps.Get(i));
    while (r.Next()) sink += static_cast<uint64_t>(r.t()) ^ DoubleToBits(r.v());
  }
  return sink;
}

// Aborts unless the pages hold exactly the fixture's points.
void Verify(const Fixture& f, const PageSet& s, const PageSet& g) {
  std::vector<Sample> all;
  for (const auto& series : f.series) all.insert(all.end(), series.begin(), series.end());
  size_t k = 0;
  compress::PageIterator it;
  for (size_t i = 0; i < s.pages.size(); ++i) {
    it.Reset(s.Get(i));
    while (it.Next()) {
      if (k >= all.size() || it.t() != all[k].t || !it.v().BitEquals(all[k].v)) {
        std::fprintf(stderr, "%s: sundial mismatch at point %zu\n", f.name.c_str(), k);
        std::abort();
      }
      ++k;
    }
  }
  size_t j = 0;
  for (size_t i = 0; i < g.pages.size(); ++i) {
    GorillaReader r(g.Get(i));
    while (r.Next()) {
      if (j >= all.size() || r.t() != all[j].t ||
          DoubleToBits(r.v()) != DoubleToBits(all[j].v.AsDouble())) {
        std::fprintf(stderr, "%s: gorilla mismatch at point %zu\n", f.name.c_str(), j);
        std::abort();
      }
      ++j;
    }
  }
  if (k != all.size() || j != all.size()) std::abort();
}

// Best thread CPU and best wall time of reps runs, in ns per point.
struct Timing {
  double cpu = 1e30;
  double wall = 1e30;
};

template <typename Fn>
Timing Best(int reps, double points, Fn fn) {
  Timing best;
  for (int r = 0; r < reps; ++r) {
    const double w = WallSeconds();
    const double c = CpuSeconds();
    fn();
    const double cpu = (CpuSeconds() - c) * 1e9 / points;
    const double wall = (WallSeconds() - w) * 1e9 / points;
    if (cpu < best.cpu) best.cpu = cpu;
    if (wall < best.wall) best.wall = wall;
  }
  return best;
}

}  // namespace
}  // namespace sundial::bench

int main(int argc, char** argv) {
  using namespace sundial::bench;
  size_t points = 1000000;
  uint32_t page_size = sundial::compress::kDefaultPageSize;
  int reps = 5;
  std::string only;  // run just the fixture of this name
  bool value_dod = true;  // PageBuilder's delta-of-delta value option (its default)
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--points") == 0) points = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--page-size") == 0) page_size = static_cast<uint32_t>(std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--reps") == 0) reps = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
    if (std::strcmp(argv[i], "--value-dod") == 0) value_dod = std::atoi(argv[i + 1]) != 0;
  }
  std::printf("page size %u bytes, value_dod %d, best of %d runs, load average %.2f at start\n",
              page_size, value_dod ? 1 : 0, reps, LoadAverage());
  std::printf("times in ns/point: thread CPU time (wall time)\n\n");
  std::printf("| fixture | points | sundial B/pt | gorilla B/pt | sundial/gorilla "
              "| sundial enc | sundial dec | sundial dec batch | gorilla enc | gorilla dec |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  volatile uint64_t sink = 0;
  for (const Fixture& f : MakeFixtures(points)) {
    if (!only.empty() && f.name != only) continue;
    PageSet s, g;
    s.bytes.reserve(points * 16);
    g.bytes.reserve(points * 16);
    const double n = static_cast<double>(f.points());
    const Timing se = Best(reps, n, [&] { EncodeSundial(f, page_size, value_dod, &s); });
    const Timing ge = Best(reps, n, [&] { EncodeGorilla(f, page_size, &g); });
    Verify(f, s, g);
    const Timing sd = Best(reps, n, [&] { sink = sink + DecodeSundial(s); });
    const Timing sb = Best(reps, n, [&] { sink = sink + DecodeSundialBatch(s); });
    const Timing gd = Best(reps, n, [&] { sink = sink + DecodeGorilla(g); });
    const double sbytes = static_cast<double>(s.bytes.size()) / n;
    const double gbytes = static_cast<double>(g.bytes.size()) / n;
    std::printf("| %s | %zu | %.4f | %.4f | %.1f%% | %.1f (%.1f) | %.1f (%.1f) | %.1f (%.1f) "
                "| %.1f (%.1f) | %.1f (%.1f) |\n",
                f.name.c_str(), f.points(), sbytes, gbytes, 100 * sbytes / gbytes, se.cpu, se.wall,
                sd.cpu, sd.wall, sb.cpu, sb.wall, ge.cpu, ge.wall, gd.cpu, gd.wall);
  }
  return 0;
}
