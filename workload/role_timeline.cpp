#include "collsim/workload/role_timeline.hpp"

#include <algorithm>

namespace collsim::workload {

void RoleTimelines::add(goal::RankId rank, OpRole role, std::int64_t start_ps, std::int64_t end_ps) {
  if (end_ps <= start_ps) return;
  std::vector<BusyInterval>& v = ranks_[rank][static_cast<std::size_t>(role)];
  // Ops finish roughly in time order: most intervals extend or follow the last one.
  if (v.empty() || start_ps > v.back().end) {
    v.push_back({start_ps, end_ps});
    return;
  }
  if (start_ps >= v.back().start) {
    v.back().end = std::max(v.back().end, end_ps);
    return;
  }
  // Anywhere else: merge with every interval it overlaps or touches. Ends ascend too, as the
  // intervals are disjoint.
  const auto lo = std::lower_bound(v.begin(), v.end(), start_ps,
                                   [](const BusyInterval& b, std::int64_t t) { return b.end < t; });
  const auto hi = std::upper_bound(v.begin(), v.end(), end_ps,
                                   [](std::int64_t t, const BusyInterval& b) { return t < b.start; });
  if (lo == hi) {
    v.insert(lo, {start_ps, end_ps});
    return;
  }
  lo->start = std::min(lo->start, start_ps);
  lo->end = std::max((hi - 1)->end, end_ps);
  v.erase(lo + 1, hi);
}

std::uint64_t RoleTimelines::num_intervals() const {
  std::uint64_t n = 0;
  for (const auto& roles : ranks_)
    for (const auto& v : roles) n += v.size();
  return n;
}

}  // namespace collsim::workload
