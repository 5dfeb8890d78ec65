#include "collsim/exec/fabric_executor.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

#include "collsim/log/log.hpp"
#include "goal_host_app.hpp"

namespace collsim::exec {
namespace {

std::vector<std::string> gather_lines(pdes::Transport& transport, const std::vector<std::string>& mine) {
  std::string joined;
  for (const std::string& line : mine) joined += line + '\n';
  const auto bytes = transport.gather(std::as_bytes(std::span(joined.data(), joined.size())));
  std::vector<std::string> all;
  std::string line;
  for (std::byte b : bytes) {
    if (static_cast<char>(b) == '\n') {
      all.push_back(std::move(line));
      line.clear();
    } else {
      line.push_back(static_cast<char>(b));
    }
  }
  return all;
}

}  // namespace

FabricRun run_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric_params,
                        pdes::Transport& transport, const net::FabricOptions& options, const goal::Schedule& schedule,
                        const Placement& placement, const PacketHostParams& host_params,
                        const FabricRunOptions& run_options) {
  if (placement.host_of.size() != schedule.num_ranks())
    throw std::invalid_argument("the placement has " + std::to_string(placement.host_of.size()) +
                                " ranks but the schedule " + std::to_string(schedule.num_ranks()));
  if (placement.ranks_on.size() != topology.num_hosts())
    throw std::invalid_argument("the placement is for " + std::to_string(placement.ranks_on.size()) +
                                " hosts but the topology has " + std::to_string(topology.num_hosts()));
  spdlog::logger& log = logging::logger("exec");
  log.debug("executing {} op(s) of {} rank(s) on '{}' over {} simulator rank(s)", schedule.num_ops(),
            schedule.num_ranks(), topology.name(), transport.size());
  net::Fabric fabric(topology, fabric_params, transport, options, [&](net::HostIndex h) {
    return std::make_unique<GoalHostApp>(schedule, placement, host_params, h, run_options.record_op_times);
  });
  FabricRun run;
  run.stats = fabric.run();
  run.totals = fabric.totals();

  std::vector<RankSummary> summaries;
  std::vector<std::string> blocked, unmatched;
  std::vector<OpTime> times;
  for (net::Host* host : fabric.local_hosts()) {
    const auto& app = static_cast<const GoalHostApp&>(host->app());
    app.summarise(summaries);
    app.report_leftovers(blocked, unmatched);
    app.append_op_times(times);
  }
  summaries = pdes::gather_values(transport, summaries);
  blocked = gather_lines(transport, blocked);
  unmatched = gather_lines(transport, unmatched);
  if (run_options.record_op_times) times = pdes::gather_values(transport, times);

  RunResult& r = run.result;
  r.events = run.stats.events;
  r.wall_s = run.stats.wall_s;
  r.events_per_s = run.stats.events_per_s;
  r.ops_total = schedule.num_ops();
  if (transport.rank() != 0) return run;
  r.rank_finish_ps.assign(schedule.num_ranks(), 0);
  for (const RankSummary& s : summaries) {
    r.rank_finish_ps[s.rank] = s.finish_ps;
    r.makespan_ps = std::max(r.makespan_ps, s.finish_ps);
    r.ops_completed += s.ops_done;
    r.messages += s.messages;
    r.bytes += s.bytes;
    if (s.complete == 0) r.complete = false;
  }
  r.blocked = std::move(blocked);
  r.unmatched = std::move(unmatched);
  if (!r.unmatched.empty() || !r.blocked.empty()) r.complete = false;
  if (run_options.record_op_times) {
    std::sort(times.begin(), times.end(),
              [](const OpTime& a, const OpTime& b) { return a.rank != b.rank ? a.rank < b.rank : a.op < b.op; });
    r.op_times = std::move(times);
  }
  log.debug("executed: {} of {} op(s) complete, makespan {} ps, {} events in {:.3f} s", r.ops_completed, r.ops_total,
            r.makespan_ps, r.events, r.wall_s);
  return run;
}

}  // namespace collsim::exec
