#include "collsim/workload/role_timeline.hpp"

#include <algorithm>

namespace collsim::workload {

namespace {

// Merges [start, end) into disjoint, non-touching, ascending intervals.
void merge(std::vector<BusyInterval>& v, SimTime start, SimTime end) {
  // Ends ascend too, as the intervals are disjoint.
  const auto lo = std::lower_bound(v.begin(), v.end(), start, [](const BusyInterval& b, SimTime t) { return b.end < t; });
  const auto hi = std::upper_bound(v.begin(), v.end(), end, [](SimTime t, const BusyInterval& b) { return t < b.start; });
  if (lo == hi) {
    v.insert(lo, {start, end});
    return;
  }
  lo->start = std::min(lo->start, start);
  lo->end = std::max((hi - 1)->end, end);
  v.erase(lo + 1, hi);
}

}  // namespace

void RoleTimelines::add(goal::RankId rank, OpRole role, SimTime start, SimTime end) {
  if (end <= start) return;
  BusyInterval& last = latest(rank, role);
  std::vector<BusyInterval>& before = closed(rank, role);  // read only off the common paths
  if (last.end <= last.start) {
    if (before.empty() || start > before.back().end) {
      last = {start, end};
      return;
    }
    // busy() closed the latest interval: reopen it and merge as below.
    last = before.back();
    before.pop_back();
  }
  if (start > last.end) {  // after a gap: the latest interval is closed
    before.push_back(last);
    last = {start, end};
    return;
  }
  if (end >= last.start) {  // overlaps or touches the latest interval
    last.end = std::max(last.end, end);
    if (start < last.start) {
      last.start = start;
      for (; !before.empty() && before.back().end >= last.start; before.pop_back())
        last.start = std::min(last.start, before.back().start);
    }
    return;
  }
  merge(before, start, end);  // wholly before the latest interval
}

const std::vector<BusyInterval>& RoleTimelines::busy(goal::RankId rank, OpRole role) const {
  std::vector<BusyInterval>& before = closed(rank, role);
  BusyInterval& last = latest(rank, role);
  if (last.end > last.start) {
    before.push_back(last);
    last = {};
  }
  return before;
}

RankActivity RoleTimelines::activity(goal::RankId rank) const {
  const std::vector<BusyInterval>& compute = busy(rank, OpRole::Compute);
  std::vector<BusyInterval> comm;
  for (std::size_t role = 1; role < kRoles; ++role) {
    const std::vector<BusyInterval>& b = busy(rank, static_cast<OpRole>(role));
    comm.insert(comm.end(), b.begin(), b.end());
  }
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
  for (const BusyInterval& b : latest_) n += b.end > b.start ? 1 : 0;
  return n;
}

}  // namespace collsim::workload
