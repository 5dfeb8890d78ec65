#include "collsim/collectives/unit_layout.hpp"

#include <algorithm>

namespace collsim::collectives {

std::uint64_t UnitLayout::bytes(UnitRange r) const {
  if (r.end <= r.begin) return 0;
  // Units of one slice all have the slice's size; slices below `big` are one byte larger.
  const std::uint64_t base = block_bytes_ / slices_;
  const std::uint64_t big = block_bytes_ % slices_;
  std::uint64_t total = r.size() * base;
  // Units whose slice < big: units [0, big * blocks_).
  const std::uint64_t big_units_end = big * blocks_;
  if (r.begin < big_units_end) total += std::min(r.end, big_units_end) - r.begin;
  return total;
}

}  // namespace collsim::collectives
