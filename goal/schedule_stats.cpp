#include "collsim/goal/schedule_stats.hpp"

#include <algorithm>

#include "collsim/goal/dependency_analysis.hpp"

namespace collsim::goal {

namespace {
// Sums saturate: a schedule may legitimately move more than 2^64 bytes in total.
std::uint64_t add_saturating(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
}  // namespace

ScheduleStats compute_stats(const Schedule& schedule) {
  ScheduleStats s;
  s.num_ranks = schedule.num_ranks();
  s.ops = schedule.num_ops();
  s.requires_edges = schedule.num_requires();
  s.irequires_edges = schedule.num_irequires();
  const ScheduleColumns& a = schedule.columns();
  for (std::uint64_t i = 0; i < s.ops; ++i) {
    s.max_cpu = std::max<std::uint32_t>(s.max_cpu, a.cpu[i]);
    s.max_nic = std::max<std::uint32_t>(s.max_nic, a.nic[i]);
    switch (a.kind[i]) {
      case OpKind::Send:
        ++s.sends;
        s.bytes_sent = add_saturating(s.bytes_sent, a.size[i]);
        break;
      case OpKind::Recv:
        ++s.recvs;
        s.bytes_received = add_saturating(s.bytes_received, a.size[i]);
        if (a.peer[i] == kAnySource || a.tag[i] == kAnyTag) ++s.wildcard_recvs;
        break;
      case OpKind::Calc:
        ++s.calcs;
        s.calc_ns = add_saturating(s.calc_ns, a.size[i]);
        break;
    }
  }
  for (RankId r = 0; r < schedule.num_ranks(); ++r) {
    const RankOps rank = schedule.rank(r);
    s.max_ops_per_rank = std::max<std::uint64_t>(s.max_ops_per_rank, rank.num_ops());
    s.longest_chain_ops = std::max(s.longest_chain_ops, longest_dependency_chain(rank));
  }
  return s;
}

}  // namespace collsim::goal
