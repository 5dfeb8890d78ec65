#include "algorithms/families.hpp"

namespace collsim::coll {

extern const Algorithm kAllreduceRing;

std::vector<const Algorithm*> allreduce_algorithms() { return {&kAllreduceRing}; }

}  // namespace collsim::coll
