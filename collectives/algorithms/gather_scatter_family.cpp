#include "algorithms/families.hpp"

namespace collsim::collectives {

extern const Algorithm kAllgatherRing;
extern const Algorithm kAllgatherRecursiveDoubling;
extern const Algorithm kAllgatherBruck;
extern const Algorithm kReduceScatterRing;
extern const Algorithm kReduceScatterRecursiveHalving;

std::vector<const Algorithm*> gather_scatter_algorithms() {
  return {&kAllgatherRing, &kAllgatherRecursiveDoubling, &kAllgatherBruck, &kReduceScatterRing,
          &kReduceScatterRecursiveHalving};
}

}  // namespace collsim::collectives
