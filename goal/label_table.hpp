#pragma once
// Label -> op index for the rank being parsed. Keys point into the input text, so
// nothing is allocated per label; clear() is O(1) (a generation counter), because the
// table is emptied at every rank block.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace collsim::goal::detail {

class LabelTable {
 public:
  LabelTable();
  // Inserts key -> value; if the key is present, returns its value and changes nothing.
  std::optional<std::uint32_t> insert(std::string_view key, std::uint32_t value);
  std::optional<std::uint32_t> find(std::string_view key) const;
  void clear();

 private:
  struct Slot {
    const char* key;
    std::uint32_t length;
    std::uint32_t value;
    std::uint32_t generation;
    std::uint32_t hash_bits;
  };
  std::size_t probe(std::string_view key, std::uint64_t hash) const;
  void grow();

  std::vector<Slot> slots_;
  std::uint32_t generation_ = 1;
  std::size_t count_ = 0;
};

}  // namespace collsim::goal::detail
