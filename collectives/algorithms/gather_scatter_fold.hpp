#pragma once
// The fold that lets recursive doubling and halving run on any n, as in MPICH's recursive
// halving reduce-scatter (which pairs ranks 2i and 2i+1 instead): the p = 2^floor(log2 n)
// core ranks run the power-of-two algorithm, and extra rank p + i hands its data to core
// rank i first and gets its result back from it at the end. Core rank i therefore answers
// for block i and, when it has an extra, for block p + i: the blocks of consecutive core
// ranks are at most two ranges of units.

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "collsim/collectives/unit_layout.hpp"

namespace collsim::collectives {

struct GatherScatterFold {
  explicit GatherScatterFold(std::uint32_t members) : n(members), p(std::bit_floor(members)) {}

  bool is_extra(std::uint32_t member) const { return member >= p; }
  bool has_extra(std::uint32_t core) const { return core + p < n; }
  // The other member of a pair: extra p + i <-> core i.
  std::uint32_t pair(std::uint32_t member) const { return is_extra(member) ? member - p : member + p; }
  std::uint32_t rounds() const { return static_cast<std::uint32_t>(std::countr_zero(p)); }

  // The units of slice `slice` of the blocks core ranks [first, last) answer for: their own,
  // then their extras'.
  std::vector<UnitRange> blocks_of(std::uint32_t first, std::uint32_t last, std::uint64_t slice) const {
    const std::uint64_t base = slice * n;
    std::vector<UnitRange> units{{base + first, base + last}};
    const std::uint32_t extras_end = std::min(last, n - p);
    if (first < extras_end) units.push_back({base + p + first, base + p + extras_end});
    return units;
  }

  std::uint32_t n;
  std::uint32_t p;
};

}  // namespace collsim::collectives
