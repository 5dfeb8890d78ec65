#include "algorithms/families.hpp"

namespace collsim::coll {

extern const Algorithm kAllreduceRing;
extern const Algorithm kAllreduceDoubleBinaryTree;
extern const Algorithm kAllreduceRecursiveDoubling;
extern const Algorithm kAllreduceRabenseifner;
extern const Algorithm kAllreduceHierarchical;

std::vector<const Algorithm*> allreduce_algorithms() {
  return {&kAllreduceRing, &kAllreduceDoubleBinaryTree, &kAllreduceRecursiveDoubling, &kAllreduceRabenseifner,
          &kAllreduceHierarchical};
}

}  // namespace collsim::coll
