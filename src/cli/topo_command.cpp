#include "topo_command.hpp"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "collsim/common/units.hpp"
#include "collsim/topo/loader.hpp"
#include "collsim/topo/metrics.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::cli {

namespace {

struct ShowOptions {
  std::string file;
  bool json = false;
};

nlohmann::json show_json(const topo::Topology& t, const topo::TopologyMetrics& m, const std::string& file) {
  nlohmann::json classes = nlohmann::json::array();
  for (const topo::LinkClass& c : m.link_classes)
    classes.push_back({{"medium", std::string(topo::to_string(c.medium))},
                       {"bandwidth_bps", c.bandwidth.bps()},
                       {"bandwidth", format_bandwidth(c.bandwidth)},
                       {"latency_ps", c.latency.picoseconds()},
                       {"latency", format_duration(c.latency)},
                       {"count", c.count}});
  nlohmann::json j = {
      {"file", file},
      {"name", t.name()},
      {"kind", t.kind()},
      {"hosts", m.hosts},
      {"switches", m.switches},
      {"nvswitches", m.nvswitches},
      {"links", m.links},
      {"link_classes", classes},
      {"min_link_bandwidth_bps", m.min_link_bandwidth.bps()},
      {"max_link_bandwidth_bps", m.max_link_bandwidth.bps()},
      {"min_link_latency_ps", m.min_link_latency.picoseconds()},
      {"max_link_latency_ps", m.max_link_latency.picoseconds()},
      {"max_switch_ports", m.max_switch_ports},
      {"max_host_ports", m.max_host_ports},
      {"connected", m.connected},
      {"diameter_hops", m.diameter_hops},
      {"mean_hops", m.mean_hops},
      {"bisection_bandwidth_bps", m.bisection_bandwidth_bps},
      {"bisection_exact", m.bisection_exact},
      {"bisection_method", m.bisection_method},
  };
  if (t.torus()) j["torus_dims"] = t.torus()->dims;
  if (t.dragonfly())
    j["dragonfly"] = {{"groups", t.dragonfly()->groups},
                      {"routers_per_group", t.dragonfly()->routers_per_group},
                      {"hosts_per_router", t.dragonfly()->hosts_per_router}};
  return j;
}

void run_show(const ShowOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const topo::Topology t = topo::load_topology(o.file);
  const double load_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const topo::TopologyMetrics m = topo::compute_metrics(t);
  if (o.json) {
    std::cout << show_json(t, m, o.file).dump(2) << "\n";
    return;
  }
  std::cout << std::fixed << std::setprecision(1);
  std::cout << "topology          " << t.name() << " (" << t.kind() << "; " << o.file << ", read in " << load_s * 1e3
            << " ms)\n"
            << "hosts             " << m.hosts << "\n"
            << "switches          " << m.switches;
  if (m.nvswitches > 0) std::cout << " (" << m.nvswitches << " of them NVSwitches)";
  std::cout << "; at most " << m.max_switch_ports << " ports on a switch\n";
  std::cout << "links             " << m.links << "\n";
  for (const topo::LinkClass& c : m.link_classes)
    std::cout << "                  " << c.count << " x " << topo::to_string(c.medium) << " "
              << format_bandwidth(c.bandwidth) << ", " << format_duration(c.latency) << "\n";
  if (t.torus()) {
    std::cout << "torus             ";
    for (std::size_t k = 0; k < t.torus()->dims.size(); ++k) std::cout << (k ? " x " : "") << t.torus()->dims[k];
    std::cout << "\n";
  }
  if (t.dragonfly())
    std::cout << "dragonfly         " << t.dragonfly()->groups << " groups x " << t.dragonfly()->routers_per_group
              << " routers x " << t.dragonfly()->hosts_per_router << " hosts\n";
  std::cout << std::setprecision(2) << "diameter          " << m.diameter_hops << " hops between hosts (mean "
            << m.mean_hops << ")" << (m.connected ? "" : "; some hosts cannot reach each other") << "\n";
  std::cout << "bisection         " << format_bandwidth(Bandwidth::bits_per_second(m.bisection_bandwidth_bps))
            << (m.bisection_exact ? " (exact; " : " (an upper bound; ") << m.bisection_method << ")\n";
}

}  // namespace

void add_topo_command(CLI::App& app) {
  CLI::App* topo_cmd = app.add_subcommand("topo", "Inspect network topology files");
  topo_cmd->require_subcommand(1);

  auto show = std::make_shared<ShowOptions>();
  CLI::App* show_cmd =
      topo_cmd->add_subcommand("show", "Validate a topology file and print its size, diameter and bisection");
  show_cmd->add_option("FILE", show->file, "Topology file (YAML; see topologies/ for presets)")
      ->required()
      ->check(CLI::ExistingFile);
  show_cmd->add_flag("--json", show->json, "Print one JSON object");
  show_cmd->callback([show] { run_show(*show); });
}

}  // namespace collsim::cli
