#include "flows_command.hpp"

#include "fault_report.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "collsim/common/input_error.hpp"
#include "preset_paths.hpp"
#include "collsim/net/fidelity.hpp"
#include "collsim/net/flow_driver.hpp"
#include "collsim/net/packet.hpp"
#include "collsim/topo/loader.hpp"
#include "collsim/out/run_results.hpp"
#include "collsim/out/trace_events.hpp"
#include "duration_option.hpp"
#include "fabric_options.hpp"
#include "observe_options.hpp"
#include "parallel_context.hpp"
#include "parallel_run_json.hpp"
#include "run_record.hpp"
#include "run_watch.hpp"

namespace collsim::cli {

namespace {

struct FlowsOptions {
  std::string topology;
  std::string flows_file;
  std::string pattern;
  std::string bytes = "2MiB";
  std::uint32_t fan_in = 16;
  CLI::Option* fan_in_option = nullptr;
  std::string fct_file;
  std::string fidelity;
  bool json = false;
  FabricCliOptions fabric;
  ObserveCliOptions observe;
};

// Nearest-rank percentile of sorted values.
std::int64_t percentile(const std::vector<std::int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<std::size_t>(rank, 1)) - 1];
}

void report(const FlowsOptions& o, const topo::Topology& t, const net::FabricParams& params, const net::FlowRun& run) {
  std::vector<std::int64_t> fcts;
  std::int64_t makespan = 0;
  std::size_t incomplete = 0;
  for (const auto& f : run.flows) {
    if (f.delivered.is_infinite()) {
      ++incomplete;
      continue;
    }
    fcts.push_back(f.fct().picoseconds());
    makespan = std::max(makespan, f.delivered.picoseconds());
  }
  std::sort(fcts.begin(), fcts.end());
  double mean = 0;
  for (auto v : fcts) mean += static_cast<double>(v);
  mean = fcts.empty() ? 0 : mean / static_cast<double>(fcts.size());
  const auto& s = run.stats;
  const auto& tot = run.totals;
  if (!o.fct_file.empty()) {
    std::ofstream out(o.fct_file);
    out << "src,dst,bytes,start_ps,fct_ps,acked_ps,retransmits\n";
    for (const auto& f : run.flows)
      out << f.spec.src << ',' << f.spec.dst << ',' << f.spec.bytes << ',' << f.spec.start.picoseconds() << ','
          << (f.delivered.is_infinite() ? -1 : f.fct().picoseconds()) << ','
          << (f.acked.is_infinite() ? -1 : f.acked.picoseconds()) << ',' << f.retransmits << '\n';
    if (!out) throw InputError::in_file(o.fct_file, "cannot write");
  }
  if (o.json) {
    nlohmann::json j = {
        {"topology", t.name()},
        {"hosts", t.num_hosts()},
        {"flows", run.flows.size()},
        {"flows_completed", run.flows.size() - incomplete},
        {"makespan_ps", makespan},
        {"fct_p50_ps", percentile(fcts, 0.50)},
        {"fct_p99_ps", percentile(fcts, 0.99)},
        {"fct_max_ps", fcts.empty() ? 0 : fcts.back()},
        {"fct_mean_ps", mean},
        {"bytes_delivered", tot.bytes_delivered},
        {"drops", tot.drops},
        {"drops_despite_pfc", tot.drops_despite_pfc},
        {"retransmits", tot.retransmits},
        {"timeouts", tot.timeouts},
        {"ecn_marks", tot.ecn_marks},
        {"cnps", tot.cnps},
        {"pfc_pauses", tot.pfc_pauses},
        {"packet_hops", tot.packets_forwarded},
        {"data_packets", tot.data_packets},
        {"packets_in_trains", tot.packets_in_trains},
        {"max_switch_buffer_bytes", tot.max_switch_buffer_bytes},
        {"queued_packet_bytes", sizeof(net::Packet)},
        {"events", s.events},
        {"wall_s", s.wall_s},
        {"events_per_s", s.events_per_s},
        {"sim_ranks", s.ranks},
        {"windows", s.windows},
        {"sync_fraction", s.sync_fraction},
        {"pdes", parallel_run_json(s)},
        {"pfc_deadlock", run.pfc_deadlock},
        {"params", net::fabric_param_values(params)},
    };
    if (o.fabric.any_fault()) j.update(fault_json(o.fabric, t, tot, run.given_up));
    if (!o.fidelity.empty()) {
      j["fidelity"] = o.fidelity;
      j["flow_messages"] = tot.flow_messages;
      j["flow_rate_changes"] = tot.flow_rate_changes;
    }
    std::cout << j.dump(2) << std::endl;
  } else {
    auto us = [](double ps) { return ps / 1e6; };
    std::cout << std::fixed << std::setprecision(3);
    std::cout << "flows         " << run.flows.size() << " on " << t.name() << " (" << t.num_hosts() << " hosts), cc "
              << net::to_string(params.cc) << ", routing " << net::to_string(params.routing) << ", "
              << (params.lossless ? "lossless (PFC)" : "lossy") << "\n"
              << "completed     " << run.flows.size() - incomplete << " of " << run.flows.size() << ", makespan "
              << us(static_cast<double>(makespan)) << " us\n"
              << "FCT           p50 " << us(static_cast<double>(percentile(fcts, 0.5))) << " us, p99 "
              << us(static_cast<double>(percentile(fcts, 0.99))) << " us, max "
              << us(fcts.empty() ? 0.0 : static_cast<double>(fcts.back())) << " us, mean " << us(mean) << " us\n"
              << "delivered     " << tot.bytes_delivered << " bytes; drops " << tot.drops << ", retransmits "
              << tot.retransmits << ", ECN marks " << tot.ecn_marks << ", PFC pauses " << tot.pfc_pauses << "\n"
              << (o.fabric.any_fault() ? fault_lines(o.fabric, t, tot) : "")
              << "simulation    " << s.events << " events in " << s.wall_s << " s (" << s.events_per_s / 1e6
              << " M events/s, " << static_cast<double>(tot.packets_forwarded) / std::max(s.wall_s, 1e-9) / 1e6
              << " M packet-hops/s), " << s.ranks << " rank(s), " << s.windows << " windows, sync "
              << 100 * s.sync_fraction << " %" << std::endl;
  }
  if (incomplete > 0) {
    report_given_up(std::cerr, run.given_up);
    std::string which;
    std::size_t shown = 0;
    for (const auto& f : run.flows)
      if (f.delivered.is_infinite() && shown++ < 5)
        which += " " + std::to_string(f.spec.src) + "->" + std::to_string(f.spec.dst);
    throw std::runtime_error(std::to_string(incomplete) + " flow(s) never completed (e.g." + which + ")" +
                             (run.pfc_deadlock.empty() ? "" : ": PFC deadlock, a cycle of paused ports: " + run.pfc_deadlock) +
                             (tot.drops_despite_pfc > 0 ? ": switches ran out of buffer despite PFC" : "") +
                             (o.fabric.end.empty() ? "" : "; --end may have cut them short"));
  }
}

// --hdf5 and --trace: flows with their completion times, links and link samples.
void write_details(const FlowsOptions& o, const topo::Topology& t, const net::FlowRun& run) {
  out::RunResults r;
  nlohmann::json configuration = fabric_configuration(o.fabric, o.observe);
  configuration.update({{"topology", o.topology},
                        {"flows", o.flows_file},
                        {"pattern", o.pattern},
                        {"bytes", o.bytes},
                        {"fan_in", o.fan_in}});
  record_identity(r, configuration);
  r.links = link_directions(t);
  r.link_bytes_total = run.link_bytes;
  r.samples = run.link_samples;
  for (const net::FlowOutcome& f : run.flows) {
    out::FlowRecord& record =
        r.flows.emplace_back(out::FlowRecord{f.spec.src, f.spec.dst, f.spec.bytes, f.spec.start, std::nullopt});
    if (!f.delivered.is_infinite()) record.end = f.delivered;
  }
  if (!o.observe.hdf5.empty()) out::write_run_results_hdf5(o.observe.hdf5, r);
  if (!o.observe.trace.empty()) out::write_trace_events(o.observe.trace, r);
}

void run_flows_command(const FlowsOptions& o) {
  o.observe.check();
  if (o.flows_file.empty() == o.pattern.empty())
    throw CLI::ValidationError("--flows/--pattern", "give exactly one of --flows FILE and --pattern NAME");
  const net::FabricParams params = o.fabric.params();
  net::FabricOptions options = o.fabric.options();
  if (o.observe.keeps_details()) {
    options.sample_interval = o.observe.sample_period();
    options.max_samples = o.observe.max_samples;
  }
  std::optional<net::FlowPattern> pattern;
  if (!o.pattern.empty()) {
    pattern = net::flow_pattern_from_name(o.pattern);
    if (!pattern) throw CLI::ValidationError("--pattern", "unknown pattern '" + o.pattern + "' (permutation, incast, alltoall, random)");
  }
  std::string error;
  const auto bytes = parse_byte_size(o.bytes, &error);
  if (!bytes) throw CLI::ValidationError("--bytes", error);

  ParallelContext parallel;
  const int rc = parallel.guarded([&] {
    const topo::Topology t = topo::load_topology(o.topology);
    // The default fits small topologies; a --fan-in they cannot hold is refused, not cut.
    const bool fan_in_given = o.fan_in_option && o.fan_in_option->count() > 0;
    if (pattern == net::FlowPattern::Incast && fan_in_given && (o.fan_in < 1 || o.fan_in > t.num_hosts() - 1))
      throw CLI::ValidationError("--fan-in", std::to_string(o.fan_in) + " senders, but " + o.topology + " has " +
                                                 std::to_string(t.num_hosts() - 1) + " hosts besides the receiver");
    const std::vector<net::FlowSpec> flows =
        pattern ? net::make_flow_pattern(*pattern, t.num_hosts(), *bytes, params.seed,
                                         fan_in_given ? o.fan_in : std::min(o.fan_in, t.num_hosts() - 1))
                : net::read_flow_csv(o.flows_file, t.num_hosts());
    RunWatch watch(o.observe, parallel.is_root(), parallel.transport().size(), &t, "flows", flows.size());
    net::FabricOptions watched = options;
    watched.link_changes = o.fabric.link_changes(t);
    watched.link_faults = o.fabric.link_faults(t);
    watched.monitor = &watch;
    if (!o.fidelity.empty()) {
      try {
        net::check_media_named(o.fidelity, t);
        watched.fidelity = net::parse_fidelity(o.fidelity);
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError("--fidelity", e.what());
      }
    }
    const net::FlowRun run = net::run_flows(t, params, parallel.transport(), watched, flows);
    if (!parallel.is_root()) return;
    if (o.observe.keeps_details()) write_details(o, t, run);
    report(o, t, params, run);
  });
  if (rc != 0) throw CLI::RuntimeError(rc);
}

}  // namespace

void add_flows_command(CLI::App& app) {
  auto o = std::make_shared<FlowsOptions>();
  CLI::App* cmd = app.add_subcommand("flows", "Simulate flows on a fabric alone: FCTs, drops, ECN, PFC");
  cmd->add_option("--topology", o->topology, "Topology file, or a preset of topologies/ by name (fat_tree_k8)")
      ->required()
      ->transform(topology_file_or_preset());
  cmd->add_option("--flows", o->flows_file, "CSV of flows: src,dst,bytes,start")->check(CLI::ExistingFile);
  cmd->add_option("--pattern", o->pattern, "Traffic pattern: permutation, incast, alltoall, random");
  cmd->add_option("--bytes", o->bytes, "Bytes per flow of a pattern, e.g. 2MiB")->capture_default_str();
  o->fan_in_option = cmd->add_option("--fan-in", o->fan_in, "Senders of an incast pattern (default: 16, or every other host)")
                         ->capture_default_str()
                         ->check(whole_number(UINT32_MAX));
  cmd->add_option("--fct", o->fct_file, "Write every flow's FCT to this CSV file");
  cmd->add_option("--fidelity", o->fidelity,
                  "Links carried as flows instead of packets: e.g. all=flow, nvlink=flow (kinds network, nvlink, "
                  "pcie, scale-up, scale-out, all)");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  o->fabric.add_to(*cmd);
  o->observe.add_to(*cmd);
  cmd->callback([o] { run_flows_command(*o); });
}

}  // namespace collsim::cli
