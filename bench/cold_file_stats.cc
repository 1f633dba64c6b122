// cold_file_stats: what the cold files of a data directory spend their
// bytes on, and what the same points cost in each cold block format.
//
//   cold_file_stats DATA_DIR
//
// For every partition's cold file (part/<start>_<end>/cold) it reads every
// series' pages and prints, per point, over all files:
//   file: the file as it is (blocks, block headers, index, footer);
//   pages: the version 2 content (page headers, page bit streams, page
//     tables) and its zstd size at levels 3 and 12;
//   columnar: the version 3 content (cold_block.h: header, timestamps,
//     values with their byte planes compressed at level 12 as compaction
//     does, value exceptions), and its
//     size once the whole block goes through zstd at levels 3, 12 and 19
//     (what a higher level of the outer zstd would give).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "storage/cold_block.h"
#include "storage/cold_file.h"
#include "sundial/common/coding.h"
#include "sundial/common/env.h"
#include "sundial/compress/page_iterator.h"
#include "sundial/compress/zstd_codec.h"

namespace sundial::storage {
namespace {

struct Totals {
  uint64_t files = 0, file_bytes = 0, series = 0, points = 0, pages = 0;
  uint64_t page_headers = 0, page_streams = 0, page_tables = 0;
  uint64_t pages_z3 = 0, pages_z12 = 0;
  ColdBlockStats col;
  uint64_t col_raw = 0, col_z3 = 0, col_z12 = 0, col_z19 = 0;
};

size_t Zsize(compress::ZstdCodec* z, const std::string& raw) {
  std::string out;
  return z->Compress(raw, &out).ok() ? out.size() : 0;
}

int Run(const std::string& dir) {
  std::unique_ptr<Env> env = NewPosixEnv();
  compress::ZstdCodec z3(3), z12(12), z19(19);
  Totals t;
  for (const auto& d : std::filesystem::directory_iterator(dir + "/part")) {
    const std::string name = d.path().filename().string();
    const size_t us = name.find('_');
    const std::string path = d.path().string() + "/cold";
    if (us == std::string::npos || !std::filesystem::exists(path)) continue;
    const Timestamp start = std::stoll(name.substr(0, us));
    const Timestamp end = std::stoll(name.substr(us + 1));
    std::unique_ptr<ColdFile> cold;
    Status s = ColdFile::Open(env.get(), path, start, end, &cold);
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), s.ToString().c_str());
      continue;
    }
    ++t.files;
    t.file_bytes += cold->file_bytes();
    for (SeriesId id : cold->SeriesIds()) {
      std::vector<ColdPage> pages;
      if (!cold->PagesOf(id, kMinTimestamp, kMaxTimestamp, &pages).ok()) continue;
      ++t.series;
      std::string page, table, stream;
      std::vector<Sample> points;
      PutVarint32(&table, static_cast<uint32_t>(pages.size()));
      for (const ColdPage& p : pages) {
        if (!cold->ReadPage(id, p, &page).ok()) continue;
        ++t.pages;
        t.page_headers += compress::kPageHeaderSize;
        t.page_streams += page.size() - compress::kPageHeaderSize;
        PutVarint32(&table, p.len);
        PutVarint64(&table, ZigZagEncode64(p.min_t - start));
        PutVarint64(&table, static_cast<uint64_t>(p.max_t - p.min_t));
        stream += page;
        compress::PageIterator it(page);
        while (it.Next()) points.push_back(Sample{it.t(), it.v()});
      }
      t.page_tables += table.size();
      t.points += points.size();
      const std::string v2 = table + stream;
      t.pages_z3 += Zsize(&z3, v2);
      t.pages_z12 += Zsize(&z12, v2);
      if (points.empty() || points.size() > kMaxColdBlockPoints) continue;
      std::string col;
      EncodeColdBlock(points, start, &z12, &col, &t.col);
      t.col_raw += col.size();
      t.col_z3 += Zsize(&z3, col);
      t.col_z12 += Zsize(&z12, col);
      t.col_z19 += Zsize(&z19, col);
    }
  }
  if (t.points == 0) {
    std::fprintf(stderr, "no cold points under %s/part\n", dir.c_str());
    return 1;
  }
  const double n = static_cast<double>(t.points);
  auto bpp = [n](uint64_t b) { return static_cast<double>(b) / n; };
  std::printf("files=%llu series=%llu points=%llu pages=%llu (%.0f points/page)\n",
              static_cast<unsigned long long>(t.files), static_cast<unsigned long long>(t.series),
              static_cast<unsigned long long>(t.points), static_cast<unsigned long long>(t.pages),
              n / static_cast<double>(t.pages));
  std::printf("file (as written)        %.4f B/pt\n", bpp(t.file_bytes));
  std::printf("pages raw                %.4f B/pt: page headers %.4f, bit streams %.4f, "
              "page tables %.4f\n",
              bpp(t.page_headers + t.page_streams + t.page_tables), bpp(t.page_headers),
              bpp(t.page_streams), bpp(t.page_tables));
  std::printf("pages zstd               level 3 %.4f, level 12 %.4f B/pt\n", bpp(t.pages_z3),
              bpp(t.pages_z12));
  std::printf("columnar                 %.4f B/pt: header %.4f, timestamps %.4f, values %.4f, "
              "value exceptions %.4f\n",
              bpp(t.col_raw), bpp(t.col.header), bpp(t.col.timestamps), bpp(t.col.values),
              bpp(t.col.value_exceptions));
  std::printf("columnar block zstd      level 3 %.4f, level 12 %.4f, level 19 %.4f B/pt\n",
              bpp(t.col_z3), bpp(t.col_z12), bpp(t.col_z19));
  std::printf("per-block overhead       block headers %.4f B/pt (24 B/series)\n",
              bpp(t.series * kColdBlockHeaderSize));
  return 0;
}

}  // namespace
}  // namespace sundial::storage

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cold_file_stats DATA_DIR\n");
    return 2;
  }
  return sundial::storage::Run(argv[1]);
}
