#include "algorithms/families.hpp"

namespace collsim::coll {

extern const Algorithm kBroadcastBinomialTree;
extern const Algorithm kBroadcastPipelinedChain;
extern const Algorithm kReduceBinomialTree;

std::vector<const Algorithm*> rooted_algorithms() {
  return {&kBroadcastBinomialTree, &kBroadcastPipelinedChain, &kReduceBinomialTree};
}

}  // namespace collsim::coll
