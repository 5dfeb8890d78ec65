#include "algorithms/families.hpp"

namespace collsim::collectives {

extern const Algorithm kAllreduceRing;
extern const Algorithm kAllreduceDoubleBinaryTree;
extern const Algorithm kAllreduceRecursiveDoubling;
extern const Algorithm kAllreduceRabenseifner;
extern const Algorithm kAllreduceHierarchical;
extern const Algorithm kAllreduceNvls;
extern const Algorithm kAllreduceNvlsTree;
extern const Algorithm kAllreduceCollNetChain;
extern const Algorithm kAllreduceCollNetDirect;

std::vector<const Algorithm*> allreduce_algorithms() {
  return {&kAllreduceRing, &kAllreduceDoubleBinaryTree, &kAllreduceRecursiveDoubling, &kAllreduceRabenseifner,
          &kAllreduceHierarchical, &kAllreduceNvls, &kAllreduceNvlsTree, &kAllreduceCollNetChain,
          &kAllreduceCollNetDirect};
}

}  // namespace collsim::collectives
