#include <vector>

#include "algorithms/families.hpp"
#include "collsim/collectives/algorithm.hpp"

namespace collsim::collectives {
namespace {

std::vector<const Algorithm*> collect() {
  std::vector<const Algorithm*> all;
  for (auto family : {allreduce_algorithms, gather_scatter_algorithms, rooted_algorithms, exchange_algorithms})
    for (const Algorithm* a : family()) all.push_back(a);
  return all;
}

}  // namespace

std::span<const Algorithm* const> all_algorithms() {
  static const std::vector<const Algorithm*> all = collect();
  return all;
}

const Algorithm* find_algorithm(Collective c, std::string_view name) {
  for (const Algorithm* a : all_algorithms())
    if (a->collective == c && a->name == name) return a;
  return nullptr;
}

}  // namespace collsim::collectives
