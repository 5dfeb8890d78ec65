#include "collsim/workload/role_timeline.hpp"

#include <algorithm>

namespace collsim::workload {

void RoleTimelines::add(goal::RankId rank, OpRole role, SimTime start, SimTime end) {
  if (end <= start) return;
  std::vector<BusyInterval>& v = ranks_[rank][static_cast<std::size_t>(role)];
  // Ops finish roughly in time order: most intervals extend or follow the last one.
  if (v.empty() || start > v.back().end) {
    v.push_back({start, end});
    return;
  }
  if (start >= v.back().start) {
    v.back().end = std::max(v.back().end, end);
    return;
  }
  // Anywhere else: merge with every interval it overlaps or touches. Ends ascend too, as the
  // intervals are disjoint.
  const auto lo = std::lower_bound(v.begin(), v.end(), start,
                                   [](const BusyInterval& b, SimTime t) { return b.end < t; });
  const auto hi = std::upper_bound(v.begin(), v.end(), end,
                                   [](SimTime t, const BusyInterval& b) { return t < b.start; });
  if (lo == hi) {
    v.insert(lo, {start, end});
    return;
  }
  lo->start = std::min(lo->start, start);
  lo->end = std::max((hi - 1)->end, end);
  v.erase(lo + 1, hi);
}

RankActivity RoleTimelines::activity(goal::RankId rank) const {
  const std::vector<BusyInterval>& compute = busy(rank, OpRole::Compute);
  std::vector<BusyInterval> comm;
  for (std::size_t role = 1; role < ranks_[rank].size(); ++role)
    comm.insert(comm.end(), ranks_[rank][role].begin(), ranks_[rank][role].end());
  std::sort(comm.begin(), comm.end(), [](const BusyInterval& a, const BusyInterval& b) { return a.start < b.start; });
  SimTime computing;
  for (const BusyInterval& b : compute) computing += b.end - b.start;
  // The union of the dimensions' intervals, less what of it overlaps compute (both sorted
  // and disjoint, so one pass over each).
  SimTime communicating;
  std::size_t c = 0;
  auto add_uncovered = [&](SimTime start, SimTime end) {
    while (c < compute.size() && compute[c].end <= start) ++c;
    SimTime at = start;
    for (std::size_t k = c; k < compute.size() && compute[k].start < end; ++k) {
      if (compute[k].start > at) communicating += compute[k].start - at;
      at = std::max(at, compute[k].end);
    }
    if (end > at) communicating += end - at;
  };
  for (std::size_t i = 0; i < comm.size();) {
    SimTime start = comm[i].start, end = comm[i].end;
    for (++i; i < comm.size() && comm[i].start <= end; ++i) end = std::max(end, comm[i].end);
    add_uncovered(start, end);
  }
  return {computing, communicating};
}

std::uint64_t RoleTimelines::num_intervals() const {
  std::uint64_t n = 0;
  for (const auto& roles : ranks_)
    for (const auto& v : roles) n += v.size();
  return n;
}

}  // namespace collsim::workload
