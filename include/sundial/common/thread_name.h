// Names the calling thread, as ps, top -H, gdb and /proc/self/task/*/comm
// (GET /api/stats/threads) show it.
#pragma once

namespace sundial {

// name: at most 15 characters are kept (the kernel's limit); longer names
// are cut. Failures are ignored: a name is only a help for people.
void SetThreadName(const char* name);

}  // namespace sundial
