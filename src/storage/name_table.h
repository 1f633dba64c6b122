// NameTable: interned strings of one kind (metric names, tag keys or tag
// values) mapped to dense uids from 1.
//
// Why: every name is stored once, in an arena of 64 KiB blocks that never
// moves, and series keys refer to names by uid. Lookups take a string_view
// and allocate nothing.
//
// Thread-safety: none; SeriesDict guards it with its own lock.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sundial::storage {

class NameTable {
 public:
  NameTable() = default;
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // The uid of name, or 0 if unknown.
  uint32_t Find(std::string_view name) const {
    auto it = by_name_.find(name);
    return it == by_name_.end() ? 0 : it->second;
  }
  // The name of uid; empty if unknown.
  std::string_view Name(uint32_t uid) const {
    return uid < by_uid_.size() ? by_uid_[uid] : std::string_view();
  }
  // The uid the next new name will get.
  uint32_t next_uid() const { return next_uid_; }
  // Interns name under uid. Returns false (and changes nothing) if the name
  // or the uid is already taken. REQUIRES: uid > 0, !name.empty().
  bool Insert(std::string_view name, uint32_t uid);
  // Gives uid the name new_name; the old name becomes unknown (its bytes
  // stay in the arena, so views handed out earlier stay valid). Returns
  // false (and changes nothing) if uid is unknown or new_name is taken.
  // REQUIRES: !new_name.empty().
  bool Rename(uint32_t uid, std::string_view new_name);
  size_t size() const { return by_name_.size(); }
  // All names (unordered).
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& kv : by_name_) f(kv.first, kv.second);
  }
  // Approximate heap bytes used.
  size_t MemoryUsage() const;

 private:
  std::string_view Store(std::string_view name);

  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  std::unordered_map<std::string_view, uint32_t> by_name_;
  std::vector<std::string_view> by_uid_{std::string_view()};  // [0] unused
  uint32_t next_uid_ = 1;
  size_t arena_bytes_ = 0;
};

}  // namespace sundial::storage
