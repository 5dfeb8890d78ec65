#include "label_table.hpp"

#include <xxhash.h>

#include <cstring>

namespace collsim::goal::detail {

namespace {
std::uint64_t hash_of(std::string_view key) { return XXH3_64bits(key.data(), key.size()); }
}  // namespace

LabelTable::LabelTable() : slots_(1024, Slot{nullptr, 0, 0, 0, 0}) {}

std::size_t LabelTable::probe(std::string_view key, std::uint64_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  const auto bits = static_cast<std::uint32_t>(hash >> 32);
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.generation != generation_) return i;
    if (s.hash_bits == bits && s.length == key.size() && std::memcmp(s.key, key.data(), key.size()) == 0)
      return i;
  }
}

std::optional<std::uint32_t> LabelTable::insert(std::string_view key, std::uint32_t value) {
  if ((count_ + 1) * 2 > slots_.size()) grow();
  const std::uint64_t hash = hash_of(key);
  Slot& s = slots_[probe(key, hash)];
  if (s.generation == generation_) return s.value;
  s = Slot{key.data(), static_cast<std::uint32_t>(key.size()), value, generation_,
           static_cast<std::uint32_t>(hash >> 32)};
  ++count_;
  return std::nullopt;
}

std::optional<std::uint32_t> LabelTable::find(std::string_view key) const {
  const Slot& s = slots_[probe(key, hash_of(key))];
  if (s.generation != generation_) return std::nullopt;
  return s.value;
}

void LabelTable::clear() {
  count_ = 0;
  if (++generation_ == 0) {
    // Wrapped: old slots could look current again.
    for (Slot& s : slots_) s.generation = 0;
    generation_ = 1;
  }
}

void LabelTable::grow() {
  std::vector<Slot> old(slots_.size() * 2, Slot{nullptr, 0, 0, 0, 0});
  old.swap(slots_);
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.generation != generation_) continue;
    const std::uint64_t hash = hash_of({s.key, s.length});
    std::size_t i = hash & mask;
    while (slots_[i].generation == generation_) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

}  // namespace collsim::goal::detail
