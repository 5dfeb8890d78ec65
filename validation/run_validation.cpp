#include "collsim/validation/run_validation.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "collsim/common/units.hpp"
#include "collsim/validation/bandwidth_formulas.hpp"
#include "collsim/validation/host_issue.hpp"
#include "collsim/validation/nvls_model.hpp"
#include "collsim/validation/option_error.hpp"
#include "collsim/validation/size_lowering.hpp"

namespace collsim::validation {

FabricSettings fabric_settings(std::uint32_t mtu, std::uint64_t min_xoff_bytes) {
  FabricSettings f;
  f.mtu_bytes = mtu;
  // The header keeps its 64/4096 share of a packet whatever the MTU.
  f.header_bytes = mtu / 64;
  // So do the switch buffers: PFC and ECN thresholds hold as many packets as they do at the
  // default 4 KiB MTU (with 32 KiB packets a 256 KiB xoff is 8 packets, and PFC pauses, not
  // links, set the pace: NVLSTree on log 04 lost half its bandwidth to them).
  const std::uint64_t scale = std::max<std::uint32_t>(1, mtu / 4096);
  f.pfc_xoff_bytes = std::max<std::uint64_t>(scale * 256 * 1024, min_xoff_bytes);
  f.pfc_xon_bytes = f.pfc_xoff_bytes / 2;
  f.ecn_kmin_bytes = scale * 100 * 1024;
  f.ecn_kmax_bytes = scale * 400 * 1024;
  return f;
}

RunValidation validate_run(const TestRun& log_run, std::size_t run_index, const ValidationSetup& setup,
                           const ValidationRequest& request, ScheduleSimulator& simulator,
                           const ValidationProgress& progress) {
  if (request.asks_nvls() && !nvls_available(setup))
    throw OptionError("--algo", "nvls is emulated only for allreduce on full nodes of a preset with NVLS (" +
                                    setup.preset.name + ", " + std::to_string(setup.nodes) + " node(s), " +
                                    std::to_string(setup.ranks) + " ranks)");
  const auto proto = collectives::protocol_from_name(request.protocol);
  const std::string collnet = request.asks_collnet_chain() ? "CollNetChain" : "CollNetDirect";
  if (request.asks_collnet() && proto && *proto != collectives::Protocol::Auto && *proto != collectives::Protocol::Simple)
    throw OptionError("--proto", collnet + " runs the Simple protocol only, not " + request.protocol);
  if (request.asks_collnet() && !setup.preset.sharp)
    throw OptionError("--algo", request.algorithm + " needs a network that reduces in its switches (SHARP), and " +
                                    setup.preset.name +
                                    " has none (a system file with 'sharp: true' says it has)");
  if (request.asks_collnet() && !collnet_chain_possible(setup))
    throw OptionError("--algo", request.algorithm + " is emulated only for allreduce on two or more full nodes (" +
                                    std::to_string(setup.nodes) + " node(s), " + std::to_string(setup.ranks) +
                                    " ranks)");
  TestRun run = log_run;
  derive_summary_times(run, setup.collective, setup.ranks);
  RunValidation out;
  out.run_index = run_index;
  out.setup = setup;
  out.findings = check_consistency(run, setup.collective, setup.ranks);
  LinkScaling scaling{request.parameters.gpu_link_efficiency, request.parameters.nic_efficiency};
  // The rails' aggregations are hosts after the GPUs, where CollNet's helper ranks run.
  scaling.sharp_engines = request.asks_collnet();
  scaling.nvls_engine = (nvls_possible(setup) || request.asks_nvls()) && !scaling.sharp_engines;
  scaling.net_latency = request.parameters.net_latency;
  scaling.nvls = request.parameters.nvls_efficiency > 0 ? request.parameters.nvls_efficiency
                                                         : nccl_nvls_efficiency(setup.preset.arch);
  // One network per hop latency and NIC rate that a size's protocol asks for (Lowered).
  std::map<std::tuple<SimTime, double, double>, topo::Topology> topologies;
  const auto topology_for = [&](const Lowered& lowered) -> const topo::Topology& {
    const auto key = std::make_tuple(lowered.hop_latency, lowered.nic_factor, lowered.tree_share);
    auto it = topologies.find(key);
    if (it == topologies.end()) {
      LinkScaling for_size = scaling;
      for_size.hop_latency = lowered.hop_latency;
      for_size.nic *= lowered.nic_factor * lowered.tree_share;
      for_size.gpu_link *= lowered.tree_share;
      it = topologies
               .emplace(key, make_system_topology(setup.preset, setup.nodes, setup.gpus_per_node, for_size))
               .first;
    }
    return it->second;
  };
  const auto t0 = std::chrono::steady_clock::now();
  if (request.max_sizes > 0 && run.rows.size() > request.max_sizes) {
    // Evenly spread, first and last included.
    std::vector<ResultRow> kept;
    const std::size_t n = run.rows.size(), k = std::max<std::uint32_t>(2, request.max_sizes);
    for (std::size_t i = 0; i < k; ++i) kept.push_back(run.rows[i * (n - 1) / (k - 1)]);
    run.rows = std::move(kept);
  }
  struct Simulated {
    Duration time = Duration::zero();
    std::uint64_t events = 0;
    double wall_s = 0;
    std::string description;
    Duration wire_floor = Duration::zero();
  };
  std::map<std::pair<std::uint64_t, std::string>, std::optional<Simulated>> cache;
  auto simulate_at = [&](std::uint64_t bytes, const Choice& choice) -> std::optional<Simulated> {
    const auto key = std::make_pair(bytes, choice.key());
    if (auto it = cache.find(key); it != cache.end()) return it->second;
    const Lowered lowered = lower(setup, request, bytes, choice);
    const auto ts = std::chrono::steady_clock::now();
    const topo::Topology& topology = topology_for(lowered);
    const std::optional<SimulatedSchedule> sim =
        simulator.simulate(topology, lowered.schedule, fabric_settings(lowered.mtu, lowered.min_xoff_bytes));
    std::optional<Simulated> result;
    if (sim) {
      if (!sim->complete)
        throw std::runtime_error("the simulation of " + std::to_string(bytes) + " B did not complete (" +
                                 std::to_string(sim->ops_completed) + " of " + std::to_string(sim->ops_total) +
                                 " ops" + sim->why_incomplete + ")");
      result = Simulated{to_duration(sim->makespan), sim->events,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count(),
                         lowered.description(), wire_floor(lowered.schedule, topology, lowered.mtu)};
      if (const std::optional<SubRing>& sub = lowered.sub_ring) {
        // The launch once, every round of the large ring; its bytes per link scale alike.
        const Duration launch = to_duration(lowered.plan.launch);
        result->time = launch + std::max(Duration::zero(), result->time - launch) * sub->scale();
        result->wire_floor = result->wire_floor * sub->scale();
        result->description += sub->describe(setup.nodes);
      }
    }
    cache[key] = result;
    if (progress) progress(0, sim ? sim->events : 0);
    return result;
  };
  const Duration host_issue = host_issue_per_gpu(request.parameters.host_issue);
  // Progress counts rows of the log, compared or skipped.
  struct RowDone {
    const ValidationProgress& progress;
    ~RowDone() {
      if (progress) progress(1, 0);
    }
  };
  for (const ResultRow& row : run.rows) {
    const RowDone done{progress};
    const auto& m = setup.in_place ? row.in_place : row.out_of_place;
    const std::string size = std::to_string(row.size) + " B";
    if (!m) {
      out.skipped.push_back(size + ": no " + std::string(setup.in_place ? "in-place" : "out-of-place") + " value");
      continue;
    }
    if (row.size == 0 || m->time <= Duration::zero()) {
      out.skipped.push_back(size + ": no bandwidth to compare");
      continue;
    }
    if (row.size < request.min_bytes || row.size > request.max_bytes) continue;
    const Choice choice = choose(setup, request, row.size);
    const std::uint64_t cap = largest_simulated_size(setup, request, choice);
    SizeComparison c;
    if (row.size <= cap) {
      const std::optional<Simulated> sim = simulate_at(row.size, choice);
      if (!sim) continue;
      c.simulated = sim->time;
      c.algorithm = sim->description;
      c.wall_s = sim->wall_s;
      c.events = sim->events;
    } else {
      // Too many packets: the same algorithm at cap/2 and cap, and the line through them
      // (sizes this large are bandwidth-bound, where time is linear in size), but no byte
      // added faster than the busiest link carries it (wire_floor). Slopes are times per byte.
      const std::optional<Simulated> a = simulate_at(cap / 2, choice), b = simulate_at(cap, choice);
      if (!a || !b) continue;
      const Duration measured_slope = (b->time - a->time) / static_cast<double>(cap / 2);
      const Duration floor_slope = b->wire_floor / static_cast<double>(cap);
      c.simulated = b->time + static_cast<double>(row.size - cap) * std::max(measured_slope, floor_slope);
      c.algorithm = b->description + ", extrapolated from " + format_byte_size(cap / 2) + " and " + format_byte_size(cap);
      if (floor_slope > measured_slope) c.algorithm += " at the busiest link's rate";
      // A line is only as good as the time is linear there: the slope below cap/2 should be
      // the same. When it is not (each step's latency still grows with the size, or latency
      // still hides the bytes), the output says so, and --max-packets can move the line up.
      if (const std::optional<Simulated> q = simulate_at(cap / 4, choice)) {
        const Duration lower_slope = (a->time - q->time) / static_cast<double>(cap / 4);
        const double change = lower_slope > Duration::zero() ? measured_slope / lower_slope - 1 : 1.0;
        if (std::fabs(change) > 0.2)
          c.algorithm += " (not yet linear: the slope changed by " + std::to_string(std::lround(100 * change)) +
                         "% from the halves below; raise --max-packets)";
      }
    }
    c.path = choice.path;
    c.nvls = choice.nvls;
    c.protocol = choice.protocol;
    c.collective = c.simulated;
    c.simulated = nccl_tests_iteration(c.simulated, setup.gpus_per_thread, host_issue);
    c.bytes = row.size;
    c.measured = m->time;
    c.measured_busbw = m->derived ? m->busbw : busbw_gbps(setup.collective, setup.ranks, row.size, m->time);
    c.simulated_busbw = busbw_gbps(setup.collective, setup.ranks, row.size, c.simulated);
    c.error = busbw_error(c.measured, c.simulated);
    out.sizes.push_back(std::move(c));
  }
  out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.summary = summarize(out.sizes);
  out.preset_check = check_against_preset(out.sizes);
  return out;
}

}  // namespace collsim::validation
