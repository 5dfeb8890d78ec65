#pragma once
// Pipelining shared by the ring algorithms.

#include <algorithm>
#include <cstdint>

#include "collsim/collectives/spec.hpp"

namespace collsim::coll {

// Pipeline steps for a ring that moves `bytes` as n blocks per channel and step, so that no
// message exceeds the plan's chunk: ceil(bytes / (n * channels * chunk)), at least 1.
inline std::uint64_t ring_pipeline_steps(const Plan& plan, std::uint64_t bytes) {
  const std::uint64_t per_step = std::uint64_t{plan.n} * plan.channels * plan.chunk_bytes;
  return std::max<std::uint64_t>(1, (bytes + per_step - 1) / per_step);
}

}  // namespace collsim::coll
