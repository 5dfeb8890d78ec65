// Ring allgather as NCCL runs it: per channel and pipeline step, n-1 steps in which every
// rank passes on the block it received the step before (its own block first). Every rank
// sends n-1 messages of S/(n*channels*steps).

#include "algorithms/ring_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::coll {
namespace {

// The n blocks of a slice already cut the data into n pieces, so a slice is one message.
std::uint64_t slices(const Plan& plan) { return std::uint64_t{plan.channels} * ring_pipeline_steps(plan, plan.bytes); }

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint64_t steps = ring_pipeline_steps(plan, plan.bytes);
  const std::uint64_t me = out.me();
  const auto next = static_cast<std::uint32_t>((me + 1) % n), prev = static_cast<std::uint32_t>((me + n - 1) % n);
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t first_unit = (std::uint64_t{c} * steps + s) * n;
      goal::LocalOp have = kNoOp;  // the block received the step before
      for (std::uint32_t k = 0; k + 1 < n; ++k) {
        const std::uint64_t u_send = first_unit + (me + n - k) % n;
        const std::uint64_t u_recv = first_unit + (me + n - k - 1) % n;
        out.send(next, c, UnitRange{u_send, u_send + 1}, have);
        have = out.recv(prev, c, UnitRange{u_recv, u_recv + 1}, DataAction::Copy);
      }
    }
}

}  // namespace

extern const Algorithm kAllgatherRing{"ring", Collective::Allgather,
                                      "NCCL ring: n-1 steps passing blocks around a ring, pipelined in chunks", slices,
                                      emit};

}  // namespace collsim::coll
