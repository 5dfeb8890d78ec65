// The binomial-tree broadcast run backwards (MPICH's reduce for commutative operations),
// pipelined: every relative rank reduces each slice from its children (smallest subtree
// first, as they finish first) and passes the partial result to its parent. Every non-root
// rank sends one message per slice.

#include <algorithm>

#include "algorithms/rooted_schedule.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

void emit(RankEmitter& out) {
  const Plan& plan = out.plan();
  const std::uint32_t n = out.n();
  if (n == 1) return;
  const std::uint32_t v = relative_rank(plan, out.me());
  std::vector<std::uint32_t> children = binomial_children(v, n);
  std::reverse(children.begin(), children.end());
  std::vector<goal::LocalOp> reduced(children.size());
  for_each_slice(plan, [&](std::uint32_t c, UnitRange units) {
    for (std::size_t k = 0; k < children.size(); ++k)
      reduced[k] = out.recv(member_of(plan, children[k]), c, units, DataAction::Reduce);
    if (v != 0) out.send(member_of(plan, binomial_parent(v)), c, units, reduced);
  });
}

}  // namespace

extern const Algorithm kReduceBinomialTree{
    "binomial_tree", Collective::Reduce,
    "MPICH binomial tree towards the root, pipelined in chunks up the tree", pipelined_slices, emit};

}  // namespace collsim::collectives
