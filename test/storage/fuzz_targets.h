// Fuzz targets for every parser of storage's on-disk bytes. Each is a libFuzzer
// entry point body (storage_*_fuzz.cc, built with -DSUNDIAL_FUZZ=ON) and is
// also run briefly on random and mutated inputs by fuzz_smoke_test.cc.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sundial::storage {

// Input = the records part of a WAL segment: read with LogReader, every
// record decoded as a batch. Also decodes the input as one batch payload.
void FuzzWalRecords(const uint8_t* data, size_t size);

// Input = the records part of WAL segment 1, followed by an intact segment
// 2: a WalReader (what the relay tails the WAL with) reads from segment 1's
// start to the end; its position must only grow.
void FuzzWalReader(const uint8_t* data, size_t size);

// Input = a data directory, split in four by 2-byte little-endian lengths:
// series.log records, WAL segment records, page file records, page index
// records (file headers are prepended). Opens the engine on it, reads every
// series, and closes it (a clean shutdown).
void FuzzDataDir(const uint8_t* data, size_t size);

// Input = a cold file (cold_file.h) of the partition [0, 1 day): opened
// from memory without checking CRCs (so that mutations reach the index and
// block parsers); every series' pages are listed, read and decoded.
void FuzzColdFile(const uint8_t* data, size_t size);

// Input = a whole series.log file, header included (so that a damaged
// header is reached): the dictionary is opened, the bytes after the header
// are replayed as new-series records from the WAL, every series found is
// resolved again, a series is created, and it is all done a second time.
void FuzzSeriesLog(const uint8_t* data, size_t size);

// Input = a delete record's or a deletion state record's payload
// (tombstones.h), and a snapshot directory name: decoded; what decodes is
// encoded again and must decode to the same thing.
void FuzzDeleteRecords(const uint8_t* data, size_t size);
// Input = a whole meta.log file (meta_store.h), header included: the store
// is opened, read through, changed (put, delete, a batch), and opened a
// second time, which must give the same map.
void FuzzMetaLog(const uint8_t* data, size_t size);

}  // namespace sundial::storage
