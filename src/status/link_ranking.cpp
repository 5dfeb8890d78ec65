#include "collsim/status/link_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

namespace collsim::status {
namespace {

// NaN compares false with everything, which would break the sort's ordering.
double rank_key(double utilisation) {
  return std::isnan(utilisation) ? -std::numeric_limits<double>::infinity() : utilisation;
}

bool ranks_before(const LinkLoad& a, const LinkLoad& b) {
  const auto ka = rank_key(a.utilisation);
  const auto kb = rank_key(b.utilisation);
  return std::tie(kb, b.bytes, a.link) < std::tie(ka, a.bytes, b.link);
}

}  // namespace

std::vector<LinkLoad> most_utilised(std::vector<LinkLoad> links, std::size_t n) {
  const auto keep = std::min(n, links.size());
  const auto middle = links.begin() + static_cast<std::ptrdiff_t>(keep);
  std::partial_sort(links.begin(), middle, links.end(), ranks_before);
  links.erase(middle, links.end());
  return links;
}

}  // namespace collsim::status
