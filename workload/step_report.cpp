#include "collsim/workload/step_report.hpp"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

namespace collsim::workload {

namespace {

struct Edge {
  SimTime t;
  int delta;
  OpRole role;
};

// Where the critical rank's time went, from its busy intervals: each span between two
// consecutive edges goes to compute if any compute runs, else in equal shares to the
// dimensions communicating, else to idle. The shares are kept exactly, as multiples of
// 1/kShares ps, so that any way of cutting the same busy time into intervals gives the
// same numbers.
constexpr std::int64_t kShares = 12;  // divisible by 1..kDimensions
static_assert(kDimensions <= 4, "kShares must be divisible by every number of dimensions");

StepReport report_from(const WorkloadSpec& w, const StepTotals& totals, std::span<const SimTime> rank_finish,
                       const std::function<void(goal::RankId, std::vector<Edge>&)>& edges_of) {
  StepReport r;
  // The critical rank: the one that finishes last.
  const auto last = std::max_element(rank_finish.begin(), rank_finish.end());
  r.critical_rank = static_cast<goal::RankId>(last - rank_finish.begin());
  r.iteration = rank_finish.empty() ? SimTime::zero() : *last;

  std::vector<Edge> edges;
  if (!rank_finish.empty()) edges_of(r.critical_rank, edges);
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  std::array<int, 1 + kDimensions> active{};
  std::array<std::int64_t, kDimensions> exposed_shares{};
  SimTime now = SimTime::zero();
  for (const Edge& e : edges) {
    const SimTime span = e.t - now;
    if (span > SimTime::zero()) {
      int dims = 0;
      for (std::size_t d = 0; d < kDimensions; ++d) dims += active[1 + d] > 0 ? 1 : 0;
      if (active[0] > 0) {
        r.compute += span;
      } else if (dims > 0) {
        for (std::size_t d = 0; d < kDimensions; ++d)
          if (active[1 + d] > 0) exposed_shares[d] += span.picoseconds() * (kShares / dims);
      } else {
        r.idle += span;
      }
      now = e.t;
    }
    active[static_cast<std::size_t>(e.role)] += e.delta;
  }
  r.idle += r.iteration - now;
  // Integer shares that still add up: the rounding goes to idle time.
  for (std::size_t d = 0; d < kDimensions; ++d) r.exposed_comm[d] = SimTime::ps(exposed_shares[d] / kShares);
  SimTime accounted = r.compute + r.idle;
  for (SimTime e : r.exposed_comm) accounted += e;
  r.idle += r.iteration - accounted;

  const double peak = w.device.peak_flops[static_cast<std::size_t>(w.model.dtype)];
  const double gpus = static_cast<double>(rank_finish.size());
  if (r.iteration > SimTime::zero() && peak > 0) r.mfu = totals.model_flops / (r.iteration.seconds() * gpus * peak);
  for (const auto& b : totals.bytes_sent)
    for (std::size_t d = 0; d < kDimensions; ++d) r.bytes_per_rank[d] += static_cast<double>(b[d]) / gpus;
  return r;
}

}  // namespace

StepReport analyse_step(const WorkloadSpec& w, const LoweredStep& step, std::span<const std::optional<SimTime>> start,
                        std::span<const std::optional<SimTime>> end, std::span<const SimTime> rank_finish) {
  const goal::Schedule& s = step.schedule;
  if (start.size() != s.num_ops() || end.size() != s.num_ops() || rank_finish.size() != s.num_ranks())
    throw std::invalid_argument("analyse_step: op times do not match the schedule");
  return report_from(w, step, rank_finish, [&](goal::RankId rank, std::vector<Edge>& edges) {
    const goal::RankOps ops = s.rank(rank);
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      const std::uint64_t g = ops.first_global_op() + i;
      if (!start[g] || !end[g] || *end[g] <= *start[g]) continue;
      edges.push_back({*start[g], +1, step.role[g]});
      edges.push_back({*end[g], -1, step.role[g]});
    }
  });
}

StepReport analyse_step(const WorkloadSpec& w, const StepTotals& totals, const RoleTimelines& timelines,
                        std::span<const SimTime> rank_finish) {
  if (rank_finish.size() != timelines.num_ranks() || totals.bytes_sent.size() != timelines.num_ranks())
    throw std::invalid_argument("analyse_step: busy times do not match the step");
  return report_from(w, totals, rank_finish, [&](goal::RankId rank, std::vector<Edge>& edges) {
    for (std::size_t role = 0; role <= kDimensions; ++role)
      for (const BusyInterval& b : timelines.busy(rank, static_cast<OpRole>(role))) {
        edges.push_back({b.start, +1, static_cast<OpRole>(role)});
        edges.push_back({b.end, -1, static_cast<OpRole>(role)});
      }
  });
}

}  // namespace collsim::workload
