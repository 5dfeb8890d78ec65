// MPICH's binomial-tree broadcast, pipelined: every relative rank receives each slice from
// its parent once and forwards it to its children (largest subtree first) as soon as it has
// it. The root sends ceil(log2 n) messages per slice, every other rank receives one.

#include "algorithms/rooted_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint32_t v = relative_rank(plan, out.me());
  const std::vector<std::uint32_t> children = binomial_children(v, n);
  for_each_slice(plan, [&](std::uint32_t c, UnitRange units) {
    const goal::LocalOp have =
        v == 0 ? kNoOp : out.recv(member_of(plan, binomial_parent(v)), c, units, DataAction::Copy);
    for (std::uint32_t child : children) out.send(member_of(plan, child), c, units, have);
  });
}

}  // namespace

extern const Algorithm kBroadcastBinomialTree{
    "binomial_tree", Collective::Broadcast,
    "MPICH binomial tree from the root, pipelined in chunks down the tree", pipelined_slices, emit};

}  // namespace collsim::collectives
