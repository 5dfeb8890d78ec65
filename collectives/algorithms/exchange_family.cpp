#include "algorithms/families.hpp"

namespace collsim::collectives {

extern const Algorithm kAlltoallDirect;
extern const Algorithm kAlltoallPairwise;
extern const Algorithm kAlltoallBruck;
extern const Algorithm kBarrierDissemination;
extern const Algorithm kSendrecvDirect;

std::vector<const Algorithm*> exchange_algorithms() {
  return {&kAlltoallDirect, &kAlltoallPairwise, &kAlltoallBruck, &kBarrierDissemination, &kSendrecvDirect};
}

}  // namespace collsim::collectives
