// SnapshotSource: a file of the data dir that the storage engine does not
// own but that a snapshot must hold, such as the meta store's meta.log
// (annotations, UID and TS meta).
//
// Why an interface: Storage::Snapshot() decides the snapshot moment and
// writes the snapshot directory; the owner of the file knows how to take a
// consistent copy of it (a record log that may be rewritten by a rename at
// any time cannot be copied "up to a length"). The caller that owns both
// hands the sources to Storage::Snapshot(), so storage depends on nothing
// above it.
//
// Thread-safety: CaptureSnapshot() is called from the thread running
// Storage::Snapshot(), concurrently with the source's other methods;
// implementations synchronise themselves.
#pragma once

#include <string>

#include "sundial/common/status.h"

namespace sundial::storage {

class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;

  // The file's name in the data dir: one path component, constant.
  virtual std::string SnapshotFileName() const = 0;

  // Sets *contents to the complete bytes the file should have in the
  // snapshot: a copy a server opened on the snapshot reads as the source's
  // state at the time of this call. Called once per snapshot, right after
  // the snapshot moment, with engine maintenance paused: it must be quick,
  // must not call into Storage, and does no file I/O of its own.
  virtual Status CaptureSnapshot(std::string* contents) = 0;
};

}  // namespace sundial::storage
