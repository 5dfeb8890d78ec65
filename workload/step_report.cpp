#include "collsim/workload/step_report.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace collsim::workload {

namespace {

struct Edge {
  std::int64_t t;
  int delta;
  OpRole role;
};

}  // namespace

StepReport analyse_step(const WorkloadSpec& w, const LoweredStep& step, std::span<const std::int64_t> start_ps,
                        std::span<const std::int64_t> end_ps, std::span<const std::int64_t> rank_finish_ps) {
  const goal::Schedule& s = step.schedule;
  if (start_ps.size() != s.num_ops() || end_ps.size() != s.num_ops() || rank_finish_ps.size() != s.num_ranks())
    throw std::invalid_argument("analyse_step: op times do not match the schedule");
  StepReport r;
  // The critical rank: the one that finishes last.
  const auto last = std::max_element(rank_finish_ps.begin(), rank_finish_ps.end());
  r.critical_rank = static_cast<goal::RankId>(last - rank_finish_ps.begin());
  r.iteration_ps = rank_finish_ps.empty() ? 0 : *last;

  std::vector<Edge> edges;
  const goal::RankOps ops = s.rank(r.critical_rank);
  for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
    const std::uint64_t g = ops.first_global_op() + i;
    if (start_ps[g] < 0 || end_ps[g] <= start_ps[g]) continue;
    edges.push_back({start_ps[g], +1, step.role[g]});
    edges.push_back({end_ps[g], -1, step.role[g]});
  }
  std::sort(edges.begin(), edges.end(), [](const Edge& a, const Edge& b) { return a.t < b.t; });
  std::array<int, 1 + kDimensions> active{};
  std::array<double, kDimensions> exposed{};
  std::int64_t now = 0;
  for (const Edge& e : edges) {
    const std::int64_t span = e.t - now;
    if (span > 0) {
      int dims = 0;
      for (std::size_t d = 0; d < kDimensions; ++d) dims += active[1 + d] > 0 ? 1 : 0;
      if (active[0] > 0) {
        r.compute_ps += span;
      } else if (dims > 0) {
        for (std::size_t d = 0; d < kDimensions; ++d)
          if (active[1 + d] > 0) exposed[d] += static_cast<double>(span) / dims;
      } else {
        r.idle_ps += span;
      }
      now = e.t;
    }
    active[static_cast<std::size_t>(e.role)] += e.delta;
  }
  r.idle_ps += r.iteration_ps - now;
  // Integer shares that still add up: the rounding goes to idle time.
  for (std::size_t d = 0; d < kDimensions; ++d) {
    r.exposed_comm_ps[d] = static_cast<std::int64_t>(std::floor(exposed[d]));
  }
  std::int64_t accounted = r.compute_ps + r.idle_ps;
  for (std::int64_t e : r.exposed_comm_ps) accounted += e;
  r.idle_ps += r.iteration_ps - accounted;

  const double peak = w.device.peak_flops[static_cast<std::size_t>(w.model.dtype)];
  const double gpus = s.num_ranks();
  if (r.iteration_ps > 0 && peak > 0) r.mfu = step.model_flops / (static_cast<double>(r.iteration_ps) * 1e-12 * gpus * peak);
  for (const auto& b : step.bytes_sent)
    for (std::size_t d = 0; d < kDimensions; ++d) r.bytes_per_rank[d] += static_cast<double>(b[d]) / gpus;
  return r;
}

}  // namespace collsim::workload
