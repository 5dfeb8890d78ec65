// NCCL's ring broadcast: a chain root -> root+1 -> ... -> root+n-1 with the data cut into
// chunks; every rank forwards a chunk to its successor as soon as it has received it, and the
// last rank only receives. n-1 links each carry the whole buffer once. Chunks are one step of
// NCCL's buffer, a quarter of a ring's (rooted_schedule.hpp).

#include "algorithms/rooted_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint32_t v = relative_rank(plan, out.me());
  for_each_slice(plan, [&](std::uint32_t c, UnitRange units) {
    const goal::LocalOp have = v == 0 ? kNoOp : out.recv(member_of(plan, v - 1), c, units, DataAction::Copy);
    if (v + 1 < n) out.send(member_of(plan, v + 1), c, units, have);
  });
}

}  // namespace

extern const Algorithm kBroadcastPipelinedChain{
    "pipelined_chain", Collective::Broadcast,
    "NCCL ring broadcast: a chain from the root, pipelined in chunks", pipelined_slices, emit, nullptr, one_step_chunk, 1, true,
    ChunkPath::Chain, [](const Plan& plan) -> std::uint64_t { return plan.n - 1; }, 3};

}  // namespace collsim::collectives
