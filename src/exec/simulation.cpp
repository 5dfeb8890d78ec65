#include "collsim/exec/simulation.hpp"

#include <chrono>
#include <optional>
#include <stdexcept>

#include "collsim/exec/fabric_executor.hpp"
#include "collsim/exec/loggops_simulator.hpp"
#include "collsim/exec/loggops_stream.hpp"

namespace collsim::exec {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

SimTime ns_to_time(std::uint64_t ns) { return SimTime::ns(static_cast<std::int64_t>(ns)); }

std::optional<SimTime> ran_at(std::uint64_t ns) {
  if (ns == kNever) return std::nullopt;
  return ns_to_time(ns);
}

// The counters of a LogGOPS run, as a fabric run reports them.
SimulationRun run_of(const LogGOPSResult& l, std::uint64_t ops_total, double wall_s) {
  SimulationRun run;
  RunResult& r = run.result;
  r.wall_s = wall_s;
  r.complete = l.complete;
  r.makespan = ns_to_time(l.makespan);
  for (std::uint64_t t : l.rank_finish) r.rank_finish.push_back(ns_to_time(t));
  r.ops_total = ops_total;
  r.ops_completed = l.ops_completed;
  r.messages = l.messages;
  r.bytes = l.bytes;
  r.events = l.events;
  r.events_per_s = r.wall_s > 0 ? static_cast<double>(l.events) / r.wall_s : 0.0;
  run.stats.events = l.events;
  run.stats.wall_s = r.wall_s;
  run.stats.events_per_s = r.events_per_s;
  return run;
}

std::string unmatched_line(const UnmatchedMessage& m, const std::string& what) {
  return "rank " + std::to_string(m.to) + ": message from rank " + std::to_string(m.from) + " tag " +
         std::to_string(m.tag) + " (" + what + ") was never received";
}

void check_fabric(const NetworkSetup& s) {
  if (!s.topology) throw std::invalid_argument("a fabric run needs a topology");
  if (!s.placement) throw std::invalid_argument("a fabric run needs a placement");
}

}  // namespace

SimulationRun simulate(const goal::Schedule& schedule, const NetworkSetup& setup, pdes::Transport& transport,
                       const RecordOptions& record) {
  if (setup.backend == Backend::Fabric) {
    check_fabric(setup);
    FabricRunOptions options;
    options.record_op_times = record.op_times;
    options.record_flows = record.flows;
    PacketHostParams host = setup.host;
    host.compute = setup.compute;
    return run_on_fabric(*setup.topology, setup.fabric, transport, setup.options, schedule, *setup.placement, host,
                         options);
  }
  validate(setup.loggops);
  if (transport.rank() != 0) return {};
  LogGOPSOptions options;
  options.record_op_times = record.op_times;
  options.monitor = setup.loggops_monitor;
  options.compute = setup.compute.get();
  const auto t0 = std::chrono::steady_clock::now();
  const LogGOPSResult l = simulate_loggops(schedule, setup.loggops, options);
  SimulationRun run = run_of(l, schedule.num_ops(), seconds_since(t0));
  RunResult& r = run.result;
  for (const BlockedOp& b : l.blocked) {
    const goal::RankOps ops = schedule.rank(b.rank);
    std::string why(to_string(b.reason));
    for (goal::LocalOp p : b.unfinished_requires) why += ", op " + std::to_string(p) + " unfinished";
    for (goal::LocalOp p : b.unstarted_irequires) why += ", op " + std::to_string(p) + " not started";
    r.blocked.push_back("rank " + std::to_string(b.rank) + " " + describe_op(b.op, ops.op(b.op)) + ": " + why);
  }
  for (const UnmatchedMessage& m : l.unmatched)
    r.unmatched.push_back(unmatched_line(m, describe_op(m.send, schedule.rank(m.from).op(m.send)) + " of rank " +
                                                std::to_string(m.from)));
  if (record.op_times)
    for (goal::RankId rank = 0; rank < schedule.num_ranks(); ++rank) {
      const goal::RankOps ops = schedule.rank(rank);
      for (goal::LocalOp i = 0; i < ops.num_ops(); ++i) {
        const std::uint64_t g = ops.first_global_op() + i;
        r.op_times.push_back({rank, i, ran_at(l.op_start[g]), ran_at(l.op_end[g])});
      }
    }
  return run;
}

SimulationRun simulate(goal::ScheduleStream& stream, const NetworkSetup& setup, pdes::Transport& transport,
                       OpFinished on_finished) {
  if (setup.backend == Backend::Fabric) {
    check_fabric(setup);
    PacketHostParams host = setup.host;
    host.compute = setup.compute;
    return run_stream_on_fabric(*setup.topology, setup.fabric, transport, setup.options, stream, *setup.placement, host,
                                std::move(on_finished));
  }
  validate(setup.loggops);
  if (transport.rank() != 0) return {};
  LogGOPSStreamOptions options;
  options.monitor = setup.loggops_monitor;
  options.compute = setup.compute.get();
  if (on_finished)
    options.on_finished = [&on_finished](goal::RankId rank, std::uint8_t label, std::uint64_t start, std::uint64_t end) {
      on_finished(rank, label, ns_to_time(start), ns_to_time(end));
    };
  const auto t0 = std::chrono::steady_clock::now();
  const LogGOPSStreamResult l = simulate_loggops_stream(stream, setup.loggops, options);
  SimulationRun run = run_of(l.run, l.ops_total, seconds_since(t0));
  RunResult& r = run.result;
  r.peak_live_ops = l.peak_live_ops;
  // The ops themselves are gone from memory by now: what the window kept of them.
  for (const BlockedOp& b : l.run.blocked)
    r.blocked.push_back("rank " + std::to_string(b.rank) + " " +
                        describe_op(b.op, goal::Op{b.kind, b.peer, b.tag, b.size, 0, 0}) + ": " +
                        std::string(to_string(b.reason)));
  if (l.run.num_blocked > l.run.blocked.size())
    r.blocked.push_back(std::to_string(l.run.num_blocked - l.run.blocked.size()) +
                        " more op(s) never reached (their prerequisites never finished)");
  for (const UnmatchedMessage& m : l.run.unmatched)
    r.unmatched.push_back(unmatched_line(m, std::to_string(m.size) + " bytes, op " + std::to_string(m.send) +
                                                " of rank " + std::to_string(m.from)));
  return run;
}

}  // namespace collsim::exec
