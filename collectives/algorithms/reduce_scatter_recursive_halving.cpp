// Recursive halving reduce-scatter: in round k every rank sends the half of its blocks that
// the rank n/2^(k+1) away answers for and reduces the half it keeps, so that log2(n)
// messages carry S(n-1)/n per rank. Other n: the fold (gather_scatter_fold.hpp); an extra
// rank sends all its data to its core rank, which reduces it in and returns the extra's
// block complete at the end.

#include <vector>

#include "algorithms/gather_scatter_fold.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

// Not pipelined: as in MPI, each round is one message per channel, from S/2 down.
std::uint64_t slices(const Plan& plan) { return plan.channels; }

void emit(RankEmitter& out) {
  const std::uint32_t n = out.n(), me = out.me();
  if (n == 1) return;
  const GatherScatterFold fold(n);
  for (std::uint32_t c = 0; c < out.plan().channels; ++c) {
    const std::uint64_t base = std::uint64_t{c} * n;
    if (fold.is_extra(me)) {
      const goal::LocalOp sent = out.send(fold.pair(me), c, UnitRange{base, base + n});
      // Overwrites the block it sent, so only after sending.
      out.recv(fold.pair(me), c, UnitRange{base + me, base + me + 1}, DataAction::Copy, sent);
      continue;
    }
    goal::LocalOp have = kNoOp;  // the latest reduction into the blocks still held
    if (fold.has_extra(me)) have = out.recv(fold.pair(me), c, UnitRange{base, base + n}, DataAction::Reduce);
    std::uint32_t first = 0, last = fold.p;  // the core ranks whose blocks this rank still reduces
    for (std::uint32_t k = 0; k < fold.rounds(); ++k) {
      const std::uint32_t half = (last - first) / 2, peer = me ^ half;
      const std::uint32_t keep = (me & half) != 0 ? first + half : first;
      const std::uint32_t give = keep == first ? first + half : first;
      out.send(peer, c, fold.blocks_of(give, give + half, c), have);
      // Reduces into the blocks the previous round reduced into.
      have = out.recv(peer, c, fold.blocks_of(keep, keep + half, c), DataAction::Reduce, have);
      first = keep;
      last = keep + half;
    }
    if (fold.has_extra(me)) {
      const std::uint64_t extra_unit = base + fold.pair(me);
      out.send(fold.pair(me), c, UnitRange{extra_unit, extra_unit + 1}, have);
    }
  }
}

}  // namespace

extern const Algorithm kReduceScatterRecursiveHalving{
    "recursive_halving", Collective::ReduceScatter,
    "recursive halving: log2(n) exchanges of halving size with rank ^ n/2^(k+1); other n fold extra ranks in",
    slices, emit};

}  // namespace collsim::collectives
