#pragma once
// A collective of n GPUs in one node, 2 channels, Simple protocol: the executor tests' plan.

#include <cstdint>

#include "collsim/collectives/generate.hpp"

namespace collsim::exec::testing {

inline collectives::Plan one_node_plan(collectives::Collective c, const char* algorithm, std::uint32_t n, std::uint64_t bytes,
                                       std::uint64_t chunk_bytes = 1 << 20) {
  collectives::CollectiveSpec spec;
  spec.collective = c;
  spec.algorithm = algorithm;
  spec.num_ranks = n;
  spec.bytes = bytes;
  spec.ranks_per_node = n;
  spec.channels = 2;
  spec.chunk_bytes = chunk_bytes;
  spec.protocol = collectives::Protocol::Simple;
  return collectives::make_plan(spec);
}

}  // namespace collsim::exec::testing
