#pragma once
// How a collective's data is cut into the units that messages carry and that the verifier
// tracks. Unit u = slice * blocks_per_slice + block. A block is the collective's own
// division of its data (see blocks_per_slice); every block is cut into `slices` pieces of
// near-equal size (the first `block_bytes % slices` pieces are one byte larger), which is how
// algorithms spread data over channels and pipeline steps.

#include <cstdint>

#include "collsim/collectives/spec.hpp"

namespace collsim::collectives {

struct UnitRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;  // exclusive
  std::uint64_t size() const { return end - begin; }
  bool operator==(const UnitRange&) const = default;
};

class UnitLayout {
 public:
  explicit UnitLayout(const Plan& plan)
      : blocks_(plan.blocks_per_slice()), slices_(plan.slices), block_bytes_(plan.block_bytes()) {}
  UnitLayout(std::uint64_t blocks_per_slice, std::uint64_t slices, std::uint64_t block_bytes)
      : blocks_(blocks_per_slice), slices_(slices), block_bytes_(block_bytes) {}

  std::uint64_t blocks_per_slice() const { return blocks_; }
  std::uint64_t slices() const { return slices_; }
  std::uint64_t num_units() const { return blocks_ * slices_; }

  std::uint64_t unit(std::uint64_t slice, std::uint64_t block) const { return slice * blocks_ + block; }
  std::uint64_t slice_of(std::uint64_t unit) const { return unit / blocks_; }
  std::uint64_t block_of(std::uint64_t unit) const { return unit % blocks_; }

  std::uint64_t slice_bytes(std::uint64_t slice) const {
    return block_bytes_ / slices_ + (slice < block_bytes_ % slices_ ? 1 : 0);
  }
  std::uint64_t unit_bytes(std::uint64_t unit) const { return slice_bytes(slice_of(unit)); }
  // Data bytes of the units in [r.begin, r.end).
  std::uint64_t bytes(UnitRange r) const;

 private:
  std::uint64_t blocks_;
  std::uint64_t slices_;
  std::uint64_t block_bytes_;
};

}  // namespace collsim::collectives
