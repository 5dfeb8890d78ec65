// NCCL's ring reduce: a chain root+1 -> root+2 -> ... -> root+n-1 -> root around the ring,
// pipelined in chunks of one step of NCCL's buffer. The root's successor sends its own data,
// every later rank adds its own to what it received and passes the sum on, and the root adds
// its own last. n-1 links each carry the whole buffer once, as in the broadcast chain.

#include "algorithms/rooted_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint32_t v = relative_rank(plan, out.me());
  // Relative rank 1 starts the chain; the root (0) ends it.
  for_each_slice(plan, [&](std::uint32_t c, UnitRange units) {
    const goal::LocalOp partial =
        v == 1 ? kNoOp : out.recv(member_of(plan, (v + n - 1) % n), c, units, DataAction::Reduce);
    if (v != 0) out.send(member_of(plan, (v + 1) % n), c, units, partial);
  });
}

}  // namespace

extern const Algorithm kReducePipelinedChain{
    "pipelined_chain", Collective::Reduce,
    "NCCL ring reduce: a chain ending at the root, each rank adding its data, pipelined in chunks", pipelined_slices,
    emit, nullptr, one_step_chunk, 1, true, ChunkPath::Chain, [](const Plan& plan) -> std::uint64_t { return plan.n - 1; },
    3};

}  // namespace collsim::collectives
