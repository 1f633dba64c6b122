// StorageImpl's compaction: a partition that ended long enough ago is
// rewritten into a cold file (cold_file.h). Each series' points are read
// through the same merge readers use (out-of-order pages folded in, the
// last write winning), encoded again into larger pages in time order and
// stored as one zstd block. The partition then drops its page file.
//
// Durability: the cold file is complete and fsynced before it is renamed
// into place, and the page file is removed only after that; an interrupted
// compaction is finished or undone at the next open (partition.h). Only the
// maintenance thread writes pages, and it is the one compacting, so no page
// reaches the partition meanwhile. Readers are never blocked for long: the
// rewrite runs beside them, and only the final switch waits for a moment
// when nobody reads the partition.
#include "storage/storage_impl.h"
#include "sundial/compress/page_builder.h"

namespace sundial::storage {

Status StorageImpl::WriteColdFile(Partition* part, const std::string& tmp_path,
                                  uint32_t replaced_id) {
  ColdFileWriter writer(env_.get(), part->start());
  SUNDIAL_RETURN_IF_ERROR(writer.Open(tmp_path, replaced_id));
  DamageLog damage;
  compress::PageBuilder builder(kColdPageSize);
  std::vector<std::string> pages;
  std::vector<ColdPage> times;
  std::vector<PageRef> refs;
  const Timestamp last = part->end() - 1;
  auto seal = [&] {
    pages.emplace_back(builder.data());
    times.push_back(ColdPage{0, 0, builder.min_t(), builder.max_t()});
    builder.Reset();
  };
  // A metric's series side by side: a query reads one metric, so its
  // blocks come from one stretch of the file (one read-ahead, not one seek
  // per series).
  std::vector<SeriesId> ids = part->SeriesIds();
  dict_->SortByMetric(&ids);
  for (SeriesId id : ids) {
    refs.clear();
    part->PagesOf(id, part->start(), last, &refs);
    const PartitionFiles files = FilesOf(part);
    std::vector<SeriesIterator::Source> sources;
    uint32_t ooo = 0;
    for (const PageRef& r : refs) {
      SeriesIterator::Source src;
      src.min_t = r.min_t;
      src.max_t = r.max_t;
      src.priority = (r.flags & kPageFlagOutOfOrder) != 0 ? ++ooo : 0;
      src.part = part;
      src.ref = r;
      src.deleted = tombstones_.RangesFor(id, files, r.cold, r.offset);  // dropped for good
      sources.push_back(std::move(src));
    }
    SeriesIterator it(id, part->start(), last, std::move(sources), {}, &damage);
    pages.clear();
    times.clear();
    builder.Reset();
    while (it.Next()) {
      if (builder.Append(it.t(), it.v())) continue;
      seal();
      if (!builder.Append(it.t(), it.v())) return Status::InvalidArgument("a point does not fit a cold page");
    }
    SUNDIAL_RETURN_IF_ERROR(it.status());
    if (damage.count() > 0) {
      // Damaged pages stay where they are, described by the readers'
      // warnings, rather than being dropped for good.
      return Status::Corruption(part->dir(), "has damaged pages; not compacted");
    }
    if (!builder.empty()) seal();
    if (!pages.empty()) SUNDIAL_RETURN_IF_ERROR(writer.AddSeries(id, pages, times));
  }
  return writer.Finish();
}

Status StorageImpl::RewriteCold(PartitionRef part) {
  uint32_t cold_id = 0;
  if (!part->ColdId(&cold_id) || !tombstones_.HasPartition(part->start())) return Status::OK();
  // A crash before the next checkpoint may bring the dropped tombstones
  // back with the checkpoint's state: they then name this cold file again,
  // but it holds none of the points they cover, and only a compaction with
  // a page file (a new id) ever adds points to it.
  return SwapInColdFile(std::move(part), cold_id, [](Partition* p, const std::string& tmp) {
    return p->ReplaceCold(tmp);
  });
}

Status StorageImpl::SwapInColdFile(
    PartitionRef part, uint32_t replaced_id,
    const std::function<Status(Partition*, const std::string&)>& install) {
  const Timestamp start = part->start();
  const std::string tmp = part->dir() + "/cold.tmp";
  Status s = WriteColdFile(part.get(), tmp, replaced_id);
  part.reset();  // the switch needs the partition unpinned
  if (s.ok()) s = partitions_->Exclusive(start, [&](Partition* p) { return install(p, tmp); });
  if (!s.ok()) {
    (void)env_->RemoveFile(tmp);
    return s;
  }
  tombstones_.RemoveIf([start](const Tombstone& t) { return t.part_start == start; });
  compactions_.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

Status StorageImpl::CompactPartition(Timestamp start) {
  PartitionRef part;
  for (auto& p : partitions_->Overlapping(start, start)) {
    if (p->start() == start) part = std::move(p);
  }
  if (!part) return Status::OK();
  if (!part->HasPageFile()) return RewriteCold(std::move(part));
  SUNDIAL_RETURN_IF_ERROR(part->Sync());  // the index, before pages move
  const uint32_t id = part->PageFileId();
  const uint64_t size = part->Mark();  // the page file's length now
  // The new cold file holds no deleted point, and neither the old cold
  // file nor the page file the dropped tombstones named exists any more.
  return SwapInColdFile(std::move(part), id, [id, size](Partition* p, const std::string& tmp) {
    return p->InstallCold(tmp, id, size);
  });
}

}  // namespace sundial::storage
