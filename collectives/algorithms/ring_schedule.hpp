#pragma once
// What the ring algorithms share: pipelining, and the ring pass itself.

#include <algorithm>
#include <cstdint>

#include "collsim/collectives/rank_emitter.hpp"
#include "collsim/collectives/spec.hpp"

namespace collsim::collectives {

// Pipeline steps for a ring that moves `bytes` as n blocks per channel and step, so that no
// message exceeds the plan's chunk: ceil(bytes / (n * channels * chunk)), at least 1.
inline std::uint64_t ring_pipeline_steps(const Plan& plan, std::uint64_t bytes) {
  const std::uint64_t per_step = std::uint64_t{plan.n} * plan.channels * plan.chunk_bytes;
  return std::max<std::uint64_t>(1, (bytes + per_step - 1) / per_step);
}

// Units a ring needs: n per channel and pipeline step, one message each.
inline std::uint64_t ring_units(const Plan& plan) {
  return std::uint64_t{plan.channels} * ring_pipeline_steps(plan, plan.bytes) * plan.n;
}

// The ring pass, per pipeline step and channel, on the n units (c * steps + s) * n + block:
// in round k (0 <= k < rounds) rank r sends block (r - k - lag) mod n to r+1 and receives
// block (r - k - lag - 1) mod n from r-1, handling it as action(k); every send passes on
// what the previous round received. lag 0 starts with the rank's own block.
template <typename ActionOf>
void emit_ring_pass(RankEmitter& out, std::uint32_t rounds, std::uint32_t lag, ActionOf action) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint64_t steps = ring_pipeline_steps(plan, plan.bytes);
  const std::uint64_t me = out.me();
  const auto next = static_cast<std::uint32_t>((me + 1) % n), prev = static_cast<std::uint32_t>((me + n - 1) % n);
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t first_unit = (std::uint64_t{c} * steps + s) * n;
      goal::LocalOp have = kNoOp;  // the block received (and reduced) the round before
      for (std::uint32_t k = 0; k < rounds; ++k) {
        const std::uint64_t back = (k + lag) % n;
        const std::uint64_t u_send = first_unit + (me + n - back) % n;
        const std::uint64_t u_recv = first_unit + (me + 2 * std::uint64_t{n} - back - 1) % n;
        out.send(next, c, UnitRange{u_send, u_send + 1}, have);
        have = out.recv(prev, c, UnitRange{u_recv, u_recv + 1}, action(k));
      }
    }
}

}  // namespace collsim::collectives
