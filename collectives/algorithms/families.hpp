#pragma once
// The algorithms, grouped by family; each family's file lists its members.

#include <vector>

#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {

// allreduce: ring, double_binary_tree, recursive_doubling, rabenseifner, hierarchical, nvls,
// nvls_tree, collnet_chain, collnet_direct
std::vector<const Algorithm*> allreduce_algorithms();
// allgather: ring, recursive_doubling, bruck; reduce_scatter: ring, recursive_halving
std::vector<const Algorithm*> gather_scatter_algorithms();
// broadcast: binomial_tree, pipelined_chain; reduce: binomial_tree
std::vector<const Algorithm*> rooted_algorithms();
// alltoall: direct, pairwise, bruck; barrier: dissemination; sendrecv: direct
std::vector<const Algorithm*> exchange_algorithms();

}  // namespace collsim::collectives
