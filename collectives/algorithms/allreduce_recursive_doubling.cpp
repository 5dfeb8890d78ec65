// Recursive doubling allreduce (Thakur, Rabenseifner and Gropp 2005): in round k every rank
// swaps its whole partial result with the rank 2^k away and reduces, so after log2(n) rounds
// everyone holds the sum. Each (channel, pipeline step) is an independent instance whose
// messages are at most a chunk. Every rank sends log2(n) messages of S when n is a power of
// two.

#include <bit>
#include <cstdint>

#include "algorithms/mpich_fold.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n(), me = out.me();
  if (n == 1) return;
  const MpichFold fold(n, me);
  const std::uint32_t pow2 = fold.pow2, virtual_me = fold.virtual_me;

  const std::uint64_t steps = plan.block_pipeline_steps();
  for (std::uint64_t s = 0; s < steps; ++s)
    for (std::uint32_t c = 0; c < plan.channels; ++c) {
      const std::uint64_t slice = std::uint64_t{c} * steps + s;
      const UnitRange data{slice, slice + 1};
      if (fold.sits_out) {
        out.send(me + 1, c, data);
        out.recv(me + 1, c, data, DataAction::Copy);
        continue;
      }
      goal::LocalOp have = fold.folded ? out.recv(me - 1, c, data, DataAction::Reduce) : kNoOp;
      for (std::uint32_t distance = 1; distance < pow2; distance *= 2) {
        const std::uint32_t partner = fold.real(virtual_me ^ distance);
        const goal::LocalOp sent = out.send(partner, c, data, have);
        // Both partners overwrite what they send, so the partner's data may only land after
        // ours has been read, i.e. our send has started (finished would deadlock a rendezvous).
        have = out.recv(partner, c, data, DataAction::Reduce, {}, sent);
      }
      if (fold.folded) out.send(me - 1, c, data, have);
    }
}

}  // namespace

extern const Algorithm kAllreduceRecursiveDoubling{
    "recursive_doubling", Collective::Allreduce,
    "recursive doubling: log2(n) rounds of exchanging and reducing the whole vector (MPICH fold for other n)", pipelined_slices,
    emit};

}  // namespace collsim::collectives
