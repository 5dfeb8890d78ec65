#include "algorithms/families.hpp"

namespace collsim::collectives {

extern const Algorithm kBroadcastBinomialTree;
extern const Algorithm kBroadcastPipelinedChain;
extern const Algorithm kReduceBinomialTree;
extern const Algorithm kReducePipelinedChain;

std::vector<const Algorithm*> rooted_algorithms() {
  return {&kBroadcastBinomialTree, &kBroadcastPipelinedChain, &kReduceBinomialTree, &kReducePipelinedChain};
}

}  // namespace collsim::collectives
