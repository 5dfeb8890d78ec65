#include "algorithms/families.hpp"

namespace collsim::coll {



std::vector<const Algorithm*> rooted_algorithms() { return {}; }

}  // namespace collsim::coll
