#include "collsim/exec/fabric_executor.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "collsim/logging/logging.hpp"
#include "host_executor.hpp"
#include "op_windows.hpp"
#include "schedule_ops.hpp"
#include "streamed_ops.hpp"

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

// An op store's time, where -1 stands for never.
std::optional<SimTime> ran_at(std::int64_t ps) {
  if (ps < 0) return std::nullopt;
  return SimTime::ps(ps);
}

// Every message's start (seen by its sender) joined with its arrival (seen by its receiver),
// on rank 0.
std::vector<MessageFlow> gather_flows(pdes::Transport& transport, net::Fabric& fabric) {
  std::vector<FlowStart> starts;
  std::vector<FlowArrival> arrivals;
  for (net::Host* host : fabric.local_hosts()) {
    const auto& app = static_cast<const HostExecutor<ScheduleOps>&>(host->app());
    starts.insert(starts.end(), app.flow_starts().begin(), app.flow_starts().end());
    arrivals.insert(arrivals.end(), app.flow_arrivals().begin(), app.flow_arrivals().end());
  }
  starts = pdes::gather_values(transport, starts);
  arrivals = pdes::gather_values(transport, arrivals);
  std::vector<MessageFlow> flows;
  if (transport.rank() != 0) return flows;
  std::unordered_map<std::uint64_t, std::int64_t> arrived;  // (src host, flow) -> end
  arrived.reserve(arrivals.size());
  for (const FlowArrival& a : arrivals) arrived.emplace((std::uint64_t{a.src_host} << 40) ^ a.flow, a.end_ps);
  flows.reserve(starts.size());
  for (const FlowStart& s : starts) {
    const auto it = arrived.find((std::uint64_t{s.src_host} << 40) ^ s.flow);
    MessageFlow& f =
        flows.emplace_back(MessageFlow{s.src_host, s.dst_host, s.bytes, SimTime::ps(s.start_ps), std::nullopt});
    if (it != arrived.end()) f.end = SimTime::ps(it->second);
  }
  // A total order: a host may start several flows in one picosecond, and the order in which
  // they were gathered depends on how hosts are spread over simulator ranks.
  std::sort(flows.begin(), flows.end(), [](const MessageFlow& a, const MessageFlow& b) {
    return std::tie(a.start, a.src_host, a.dst_host, a.bytes, a.end) <
           std::tie(b.start, b.src_host, b.dst_host, b.bytes, b.end);
  });
  return flows;
}

// What every rank's hosts report, gathered into the run's result on rank 0 (elsewhere, only
// the counters every rank knows).
void collect_results(pdes::Transport& transport, SimulationRun& run, std::uint64_t ops_total, std::uint32_t num_ranks,
                     std::vector<RankSummary>& summaries, std::vector<std::string>& blocked,
                     std::vector<std::string>& unmatched) {
  summaries = pdes::gather_values(transport, summaries);
  blocked = gather_lines(transport, blocked);
  unmatched = gather_lines(transport, unmatched);
  RunResult& r = run.result;
  r.events = run.stats.events;
  r.wall_s = run.stats.wall_s;
  r.events_per_s = run.stats.events_per_s;
  r.ops_total = ops_total;
  if (transport.rank() != 0) return;
  r.rank_finish.assign(num_ranks, SimTime::zero());
  for (const RankSummary& s : summaries) {
    r.rank_finish[s.rank] = SimTime::ps(s.finish_ps);
    r.makespan = std::max(r.makespan, r.rank_finish[s.rank]);
    r.ops_completed += s.ops_done;
    r.messages += s.messages;
    r.bytes += s.bytes;
    if (s.complete == 0) r.complete = false;
  }
  r.blocked = std::move(blocked);
  r.unmatched = std::move(unmatched);
  if (!r.unmatched.empty() || !r.blocked.empty()) r.complete = false;
  logging::logger("exec").debug("executed: {} of {} op(s) complete, makespan {} ps, {} events in {:.3f} s",
                                r.ops_completed, r.ops_total, r.makespan.picoseconds(), r.events, r.wall_s);
}

// Ranks whose programs have the same shape (as many ops, the same compute time, the same
// bytes sent and received) run alike at the same time: a collective's ranks, a pipeline
// stage's GPUs. Classes 1, 2, ... of the ranks with a mate; none (0) for the others, and for
// all when there are more classes than a partition can balance.
std::vector<std::uint32_t> ranks_alike(const goal::Schedule& schedule) {
  constexpr std::size_t kMostClasses = 16;
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>, std::vector<goal::RankId>> shapes;
  for (goal::RankId r = 0; r < schedule.num_ranks(); ++r) {
    const goal::RankOps ops = schedule.rank(r);
    std::uint64_t calc = 0, sent = 0, received = 0;
    for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
      const goal::Op op = ops.op(i);
      (op.kind == goal::OpKind::Calc ? calc : op.kind == goal::OpKind::Send ? sent : received) += op.size;
    }
    shapes[{ops.num_ops(), calc, sent, received}].push_back(r);
  }
  std::vector<std::uint32_t> classes(schedule.num_ranks(), 0);
  std::uint32_t next = 0;
  for (const auto& [shape, ranks] : shapes) {
    if (ranks.size() < 2) continue;
    if (++next > kMostClasses) return std::vector<std::uint32_t>(schedule.num_ranks(), 0);
    for (const goal::RankId r : ranks) classes[r] = next;
  }
  return classes;
}

// Runs the fabric with an App on every host; `after(fabric, run)` reads the hosts before the
// fabric ends.
// `busy_together(rank)`: the class of a schedule rank (see net::FabricOptions::busy_together),
// asked only for a parallel run.
template <typename App, typename MakeApp, typename BusyTogether, typename After>
SimulationRun run_apps(const topo::Topology& topology, const net::FabricParams& fabric_params, pdes::Transport& transport,
                   const net::FabricOptions& options, const Placement& placement, std::uint32_t num_ranks,
                   MakeApp make_app, BusyTogether busy_together, After after) {
  if (placement.host_of.size() != num_ranks)
    throw std::invalid_argument("the placement has " + std::to_string(placement.host_of.size()) +
                                " ranks but the schedule " + std::to_string(num_ranks));
  if (placement.ranks_on.size() != topology.num_hosts())
    throw std::invalid_argument("the placement is for " + std::to_string(placement.ranks_on.size()) +
                                " hosts but the topology has " + std::to_string(topology.num_hosts()));
  net::FabricOptions placed = options;
  if (placed.busy_hosts.empty()) {
    // Hosts without ranks send nothing: the partition should not count their links as load.
    placed.busy_hosts.resize(placement.ranks_on.size());
    for (std::size_t h = 0; h < placement.ranks_on.size(); ++h) placed.busy_hosts[h] = !placement.ranks_on[h].empty();
  }
  if (placed.busy_together.empty() && transport.size() > 1) {
    placed.busy_together.assign(placement.ranks_on.size(), 0);
    for (std::size_t h = 0; h < placement.ranks_on.size(); ++h)
      if (!placement.ranks_on[h].empty()) placed.busy_together[h] = busy_together(placement.ranks_on[h].front());
  }
  net::Fabric fabric(topology, fabric_params, transport, placed, make_app);
  if (options.monitor)
    options.monitor->set_work_counter([&fabric] {
      std::uint64_t n = 0;
      for (net::Host* host : fabric.local_hosts()) n += static_cast<const App&>(host->app()).ops_done();
      return n;
    });
  SimulationRun run;
  run.stats = fabric.run();
  run.totals = fabric.totals();
  run.link_samples = fabric.link_samples();
  run.link_bytes = fabric.link_bytes();
  run.given_up = fabric.given_up();
  // The counter reads this fabric's hosts, which end here.
  if (options.monitor) options.monitor->set_work_counter({});
  std::string deadlock = fabric.pfc_deadlock();  // collective: every simulator rank asks
  after(fabric, run);
  run.result.pfc_deadlock = std::move(deadlock);
  return run;
}

}  // namespace

SimulationRun run_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric_params,
                        pdes::Transport& transport, const net::FabricOptions& options, const goal::Schedule& schedule,
                        const Placement& placement, const PacketHostParams& host_params,
                        const FabricRunOptions& run_options) {
  logging::logger("exec").debug("executing {} op(s) of {} rank(s) on '{}' over {} simulator rank(s)",
                                schedule.num_ops(), schedule.num_ranks(), topology.name(), transport.size());
  using Executor = HostExecutor<ScheduleOps>;
  ScheduleOps ops(schedule, run_options.record_op_times);
  auto make_app = [&](net::HostIndex h) {
    return std::make_unique<Executor>(ops, placement, host_params, h, run_options.record_flows);
  };
  std::vector<std::uint32_t> classes;
  if (transport.size() > 1) classes = ranks_alike(schedule);
  return run_apps<Executor>(
      topology, fabric_params, transport, options, placement, schedule.num_ranks(), make_app,
      [&](goal::RankId r) { return classes[r]; },
      [&](net::Fabric& fabric, SimulationRun& run) {
        std::vector<RankSummary> summaries;
        std::vector<std::string> blocked, unmatched;
        std::vector<OpTime> times;
        for (net::Host* host : fabric.local_hosts()) {
          auto& app = static_cast<Executor&>(host->app());
          app.summarise(summaries);
          app.report_leftovers(blocked, unmatched);
        }
        if (run_options.record_op_times) {
          for (net::Host* host : fabric.local_hosts())
            for (goal::RankId r : placement.ranks_on[host->index()]) {
              const auto& start = ops.start_times(r);
              const auto& end = ops.end_times(r);
              for (goal::LocalOp i = 0; i < start.size(); ++i)
                times.push_back({r, i, ran_at(start[i]), ran_at(end[i])});
            }
          times = pdes::gather_values(transport, times);
        }
        std::vector<MessageFlow> flows;
        if (run_options.record_flows) flows = gather_flows(transport, fabric);
        collect_results(transport, run, schedule.num_ops(), schedule.num_ranks(), summaries, blocked, unmatched);
        if (transport.rank() != 0) return;
        RunResult& r = run.result;
        if (run_options.record_op_times) {
          std::sort(times.begin(), times.end(), [](const OpTime& a, const OpTime& b) {
            return a.rank != b.rank ? a.rank < b.rank : a.op < b.op;
          });
          r.op_times = std::move(times);
        }
        r.flows = std::move(flows);
      });
}

SimulationRun run_stream_on_fabric(const topo::Topology& topology, const net::FabricParams& fabric_params,
                               pdes::Transport& transport, const net::FabricOptions& options,
                               goal::ScheduleStream& stream, const Placement& placement,
                               const PacketHostParams& host_params, OpFinished on_finished) {
  logging::logger("exec").debug("executing a stream of {} rank(s) on '{}' over {} simulator rank(s)",
                                stream.num_ranks(), topology.name(), transport.size());
  using Executor = HostExecutor<StreamedOps>;
  WindowOpFinished heard;
  if (on_finished)
    heard = [&on_finished](goal::RankId rank, std::uint8_t label, std::uint64_t start, std::uint64_t end) {
      on_finished(rank, label, SimTime::ps(static_cast<std::int64_t>(start)),
                  SimTime::ps(static_cast<std::int64_t>(end)));
    };
  OpWindows windows(stream, std::move(heard), /*hold_sends=*/false);
  StreamedOps ops(windows);
  auto make_app = [&](net::HostIndex h) { return std::make_unique<Executor>(ops, placement, host_params, h); };
  return run_apps<Executor>(
      topology, fabric_params, transport, options, placement, stream.num_ranks(), make_app,
      [&](goal::RankId r) { return stream.busy_together(r); },
      [&](net::Fabric& fabric, SimulationRun& run) {
        std::vector<RankSummary> summaries;
        std::vector<std::string> blocked, unmatched;
        for (net::Host* host : fabric.local_hosts()) {
          auto& app = static_cast<Executor&>(host->app());
          app.summarise(summaries);
          app.report_leftovers(blocked, unmatched);
        }
        std::uint64_t ops_total = 0, peak_live = 0;
        const auto counts = pdes::gather_values(transport, std::vector<std::uint64_t>{windows.ops_total(), windows.peak_live()});
        for (std::size_t k = 0; k + 1 < counts.size(); k += 2) {
          ops_total += counts[k];
          peak_live += counts[k + 1];
        }
        collect_results(transport, run, ops_total, stream.num_ranks(), summaries, blocked, unmatched);
        run.result.peak_live_ops = peak_live;
      });
}

}  // namespace collsim::exec
