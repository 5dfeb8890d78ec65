#pragma once
// Shared by the rooted algorithms (broadcast, reduce): ranks relative to the root, the
// binomial tree over them. They slice by pipelined_slices (algorithm.hpp).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collsim/collectives/rank_emitter.hpp"
#include "collsim/collectives/spec.hpp"

namespace collsim::collectives {

// Relative rank v is group member (v + root) % n, so the root is always 0.
inline std::uint32_t relative_rank(const Plan& plan, std::uint32_t member) {
  return static_cast<std::uint32_t>((std::uint64_t{member} + plan.n - plan.root) % plan.n);
}
inline std::uint32_t member_of(const Plan& plan, std::uint32_t relative) {
  return static_cast<std::uint32_t>((std::uint64_t{relative} + plan.root) % plan.n);
}

// NCCL's chunk for broadcast and reduce is one step of its buffer (BROADCAST_CHUNKSTEPS and
// REDUCE_CHUNKSTEPS are 1, where the ring collectives take NCCL_STEPS / 2 = 4).
inline std::uint64_t one_step_chunk(const Plan& plan) { return one_step_bytes(plan.protocol); }

// Calls f(channel, units) for every slice, step by step and channel by channel: the order in
// which every rooted algorithm and the double binary tree walk them, so that each
// connection's messages line up at both of its ends.
template <class F>
void for_each_slice(const Plan& plan, F&& f) {
  const std::uint64_t steps = plan.block_pipeline_steps();
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t slice = std::uint64_t{c} * steps + s;
      f(c, UnitRange{slice, slice + 1});
    }
}

// MPICH's binomial tree: relative rank v > 0 hangs below v - lowbit(v) and owns the subtree
// [v, v + lowbit(v)); the root owns everything. Any n works: subtrees are cut off at n.
inline std::uint32_t binomial_parent(std::uint32_t v) { return v & (v - 1); }

// v's children, largest subtree first (the order the broadcast sends in).
inline std::vector<std::uint32_t> binomial_children(std::uint32_t v, std::uint32_t n) {
  std::uint64_t span = 1;
  if (v == 0) {
    while (span < n) span <<= 1;
  } else {
    span = v & (~v + 1);
  }
  std::vector<std::uint32_t> children;
  for (std::uint64_t step = span >> 1; step > 0; step >>= 1)
    if (v + step < n) children.push_back(static_cast<std::uint32_t>(v + step));
  return children;
}

}  // namespace collsim::collectives
