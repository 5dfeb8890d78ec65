#pragma once
// Order-sensitive 64-bit hash of what an LP processed, and the combination of all LPs'
// hashes in LP id order: the checksum that must not change with the number of ranks.

#include <cstdint>
#include <utility>
#include <vector>

#include "collsim/pdes/event.hpp"
#include "collsim/pdes/transport.hpp"

namespace collsim::pdes_models {

constexpr std::uint64_t mix_hash(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}

// Gathers (LP id, hash) pairs from all ranks; on rank 0 returns their combination in LP id
// order, elsewhere 0. Collective.
std::uint64_t combine_lp_hashes(const std::vector<std::pair<pdes::LpId, std::uint64_t>>& mine,
                                pdes::Transport& transport);

}  // namespace collsim::pdes_models
