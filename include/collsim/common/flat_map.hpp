#pragma once
// A map from 64-bit keys (or keys that fold into 64 bits: OpenAddressing) to small values in
// one open-addressing array: for the lookups an executor or a host makes once or twice per
// message, where a node-based map allocated and freed a node per entry. No iteration: nothing
// may depend on the order of its keys.

#include <cassert>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "collsim/common/open_addressing.hpp"

namespace collsim::common {

template <typename Value, typename Key = std::uint64_t>
class FlatMap {
 public:
  explicit FlatMap(std::size_t first_capacity = 16) : slots_(first_capacity) {}

  std::size_t size() const { return slots_.size(); }
  bool contains(const Key& key) const { return slots_.find(key) != Table::kAbsent; }

  // The value under `key`, or nullptr.
  Value* find(const Key& key) {
    const std::size_t i = slots_.find(key);
    return i == Table::kAbsent ? nullptr : &slots_[i].value;
  }
  const Value* find(const Key& key) const {
    const std::size_t i = slots_.find(key);
    return i == Table::kAbsent ? nullptr : &slots_[i].value;
  }

  // The value under `key`; throws std::out_of_range when it is not there.
  const Value& at(const Key& key) const {
    if (const Value* v = find(key)) return *v;
    throw std::out_of_range("FlatMap: no entry for key " + std::to_string(key_bits(key)));
  }

  // Sets the value under `key`, whether it was there or not.
  void set(const Key& key, Value value) {
    const std::size_t i = slots_.find_or_claim(key).first;
    slots_[i].value = std::move(value);
    slots_[i].used = true;
  }

  // The value under `key` and false, or `value` put under it and true (as
  // std::unordered_map::try_emplace): one probe where find() then set() take two.
  std::pair<Value*, bool> try_emplace(const Key& key, Value value) {
    const auto [i, fresh] = slots_.find_or_claim(key);
    if (fresh) {
      slots_[i].value = std::move(value);
      slots_[i].used = true;
    }
    return {&slots_[i].value, fresh};
  }

  // Removes `key` and returns its value; `key` must be there.
  Value take(const Key& key) {
    const std::size_t i = slots_.find(key);
    assert(i != Table::kAbsent);
    Value v = std::move(slots_[i].value);
    slots_.erase_at(i);
    return v;
  }
  // Removes `key` if it is there.
  void erase(const Key& key) {
    const std::size_t i = slots_.find(key);
    if (i != Table::kAbsent) slots_.erase_at(i);
  }

 private:
  struct Slot {
    Key key{};
    Value value{};
    bool used = false;
    bool occupied() const { return used; }
  };
  using Table = OpenAddressing<Slot>;
  Table slots_;
};

}  // namespace collsim::common
