#include "algorithms/families.hpp"

namespace collsim::coll {



std::vector<const Algorithm*> exchange_algorithms() { return {}; }

}  // namespace collsim::coll
