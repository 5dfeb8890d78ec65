// Ring reduce-scatter as NCCL runs it: per channel and pipeline step, n-1 steps in which
// every rank adds its contribution to the block it received and passes it on, so that block
// b arrives complete at rank b. Every rank sends n-1 messages of S/(n*channels*steps).

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
      goal::LocalOp have = kNoOp;  // the block received and reduced the step before
      // Step k sends block me-k-1 and reduces block me-k-2, which is me itself at the last step.
      for (std::uint32_t k = 0; k + 1 < n; ++k) {
        const std::uint64_t u_send = first_unit + (me + n - k - 1) % n;
        const std::uint64_t u_recv = first_unit + (me + 2 * std::uint64_t{n} - k - 2) % n;
        out.send(next, c, UnitRange{u_send, u_send + 1}, have);
        have = out.recv(prev, c, UnitRange{u_recv, u_recv + 1}, DataAction::Reduce);
      }
    }
}

}  // namespace

extern const Algorithm kReduceScatterRing{
    "ring", Collective::ReduceScatter,
    "NCCL ring: n-1 steps reducing blocks on their way around a ring, pipelined in chunks", slices, emit};

}  // namespace collsim::coll
