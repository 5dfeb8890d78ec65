#include "algorithms/families.hpp"

namespace collsim::coll {



std::vector<const Algorithm*> gather_scatter_algorithms() { return {}; }

}  // namespace collsim::coll
