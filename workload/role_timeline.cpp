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

RankActivity RoleTimelines::activity(goal::RankId rank) const {
  const std::vector<BusyInterval>& compute = busy(rank, OpRole::Compute);
  std::vector<BusyInterval> comm;
  for (std::size_t role = 1; role < ranks_[rank].size(); ++role)
    comm.insert(comm.end(), ranks_[rank][role].begin(), ranks_[rank][role].end());
  std::sort(comm.begin(), comm.end(), [](const BusyInterval& a, const BusyInterval& b) { return a.start < b.start; });
  std::int64_t computing = 0;
  for (const BusyInterval& b : compute) computing += b.end - b.start;
  // The union of the dimensions' intervals, less what of it overlaps compute (both sorted
  // and disjoint, so one pass over each).
  std::int64_t communicating = 0;
  std::size_t c = 0;
  auto add_uncovered = [&](std::int64_t start, std::int64_t end) {
    while (c < compute.size() && compute[c].end <= start) ++c;
    std::int64_t at = start;
    for (std::size_t k = c; k < compute.size() && compute[k].start < end; ++k) {
      if (compute[k].start > at) communicating += compute[k].start - at;
      at = std::max(at, compute[k].end);
    }
    if (end > at) communicating += end - at;
  };
  for (std::size_t i = 0; i < comm.size();) {
    std::int64_t start = comm[i].start, end = comm[i].end;
    for (++i; i < comm.size() && comm[i].start <= end; ++i) end = std::max(end, comm[i].end);
    add_uncovered(start, end);
  }
  return {SimTime::ps(computing), SimTime::ps(communicating)};
}

std::uint64_t RoleTimelines::num_intervals() const {
  std::uint64_t n = 0;
  for (const auto& roles : ranks_)
    for (const auto& v : roles) n += v.size();
  return n;
}

}  // namespace collsim::workload
