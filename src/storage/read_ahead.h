// ReadAhead: the page-file records of a query's series that
// StorageImpl::WillRead read into memory, so that the query's iterators
// find each page there instead of making a pread of it.
//
// Why: a query over one metric of 100 hosts for a day reads about 2,300
// pages of 512 bytes, which its hint asks of the disk in a few dozen
// stretches anyway (PageFile::ReadJoined). One pread per stretch instead
// of one per page saves the system calls (a seventh of such a query's CPU
// time when the pages are cached).
//
// It pins the partitions it read from, and keys stretches by page file and
// file id, so a page file replaced meanwhile (compaction) is never
// answered from another's bytes. Its bytes count against the hint's
// max_bytes (StorageImpl::WillRead).
//
// Thread-safety: built by one thread; then const and shared by the
// query's lanes.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "storage/page_file.h"
#include "storage/partition_set.h"

namespace sundial::storage {

class ReadAhead {
 public:
  // Keeps what ReadJoined read from file, whose header id is file_id.
  void Add(const PageFile* file, uint32_t file_id, JoinedRead read);
  // Keeps part open while the read-ahead lives.
  void Pin(PartitionRef part) { pins_.push_back(std::move(part)); }
  // The bytes [offset, offset + len) of file, or null if they are not held.
  const char* Find(const PageFile* file, uint32_t file_id, uint64_t offset, uint32_t len) const;
  bool empty() const { return files_.empty(); }

 private:
  struct FileBytes {
    const PageFile* file;
    uint32_t file_id;
    JoinedRead read;
  };
  std::vector<FileBytes> files_;
  std::vector<PartitionRef> pins_;
};

}  // namespace sundial::storage
