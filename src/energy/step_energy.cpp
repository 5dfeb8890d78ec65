#include "collsim/energy/step_energy.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace collsim::energy {

namespace {

constexpr double kPico = 1e-12;

double seconds(SimTime t) { return static_cast<double>(t.picoseconds()) * kPico; }

// Watts of something drawing `pj_per_bit` at a line rate.
double watts_at(double pj_per_bit, const Bandwidth& rate) { return pj_per_bit * kPico * static_cast<double>(rate.bps()); }

}  // namespace

StepEnergy account_step(const topo::Topology& t, const PowerModel& power, SimTime step,
                        std::span<const GpuActivity> gpus, std::span<const std::uint64_t> link_bytes) {
  if (!link_bytes.empty() && link_bytes.size() != 2 * t.links().size())
    throw std::invalid_argument("link byte counts for " + std::to_string(link_bytes.size() / 2) +
                                " links, but the topology has " + std::to_string(t.links().size()));
  StepEnergy e;
  e.step = step;
  const double s = seconds(step);
  std::vector<bool> used_host(t.num_hosts(), false);
  bool first = true;
  for (const GpuActivity& g : gpus) {
    if (g.host >= t.num_hosts())
      throw std::invalid_argument("a GPU on host " + std::to_string(g.host) + ", but the topology has " +
                                  std::to_string(t.num_hosts()) + " hosts");
    if (g.computing + g.communicating > step)
      throw std::invalid_argument("GPU on host " + std::to_string(g.host) + " busy for longer than the step");
    used_host[g.host] = true;
    const double compute = power.gpu.compute_w * seconds(g.computing);
    const double comm = power.gpu.comm_w * seconds(g.communicating);
    const double idle = power.gpu.idle_w * seconds(step - g.computing - g.communicating);
    e.gpu_compute_j += compute;
    e.gpu_comm_j += comm;
    e.gpu_idle_j += idle;
    const double own = compute + comm + idle;
    e.per_gpu_min_j = first ? own : std::min(e.per_gpu_min_j, own);
    e.per_gpu_max_j = first ? own : std::max(e.per_gpu_max_j, own);
    first = false;
    ++e.gpus;
  }

  auto bytes_toward = [&](topo::LinkId l, topo::NodeId to) -> std::uint64_t {
    if (link_bytes.empty()) return 0;
    return link_bytes[2 * l + (t.link(l).b == to ? 0 : 1)];
  };
  auto is_used_host = [&](topo::NodeId n) {
    const topo::Node& node = t.node(n);
    return node.kind == topo::NodeKind::Host && used_host[node.index];
  };
  std::vector<bool> server_counted;
  for (topo::LinkId l = 0; l < t.links().size(); ++l) {
    const topo::Link& link = t.link(l);
    const bool at_host = is_used_host(link.a) || is_used_host(link.b);
    const std::uint64_t carried = link_bytes.empty() ? 0 : link_bytes[2 * l] + link_bytes[2 * l + 1];
    if (link.medium == topo::LinkMedium::NvLink) {
      if (!at_host) continue;
      for (const topo::NodeId end : {link.a, link.b})
        if (t.node(end).kind == topo::NodeKind::NvSwitch) {
          e.nvswitch_j += power.nvswitch_port_w * s;
          ++e.nvswitch_ports;
        }
      continue;
    }
    if (link.medium != topo::LinkMedium::Network) continue;
    // A link between switches counts when the job's bytes crossed it.
    if (!at_host && carried == 0) continue;
    ++e.network_links;
    e.optics_j += 2 * watts_at(power.optics_pj_per_bit, link.bandwidth) * s;
    for (const topo::NodeId end : {link.a, link.b}) {
      const topo::Node& node = t.node(end);
      if (node.kind == topo::NodeKind::Host) {
        e.nic_j += power.nic_w * s + power.nic_pj_per_bit * kPico * 8.0 * static_cast<double>(carried);
        ++e.nics;
      } else if (node.kind == topo::NodeKind::Switch) {
        e.switch_static_j += watts_at(power.switch_static_pj_per_bit, link.bandwidth) * s;
        e.switch_traffic_j += power.switch_pj_per_bit * kPico * 8.0 * static_cast<double>(bytes_toward(l, end));
        ++e.switch_ports;
      }
    }
  }
  std::vector<std::uint32_t> servers;
  for (std::uint32_t h = 0; h < t.num_hosts(); ++h)
    if (used_host[h]) servers.push_back(t.node(t.host(h)).server);
  std::sort(servers.begin(), servers.end());
  e.servers = static_cast<std::uint32_t>(std::unique(servers.begin(), servers.end()) - servers.begin());
  e.host_j = power.host_w * s * e.servers;
  return e;
}

Footprint footprint(const StepEnergy& step, const PowerModel& power, std::uint64_t steps) {
  constexpr double kJoulesPerKwh = 3.6e6;
  Footprint f;
  f.facility_j = step.it_j() * power.pue;
  const double s = seconds(step.step);
  f.average_w = s > 0 ? f.facility_j / s : 0;
  f.co2e_g = f.facility_j / kJoulesPerKwh * power.carbon_g_per_kwh;
  f.run_kwh = f.facility_j * static_cast<double>(steps) / kJoulesPerKwh;
  f.run_co2e_kg = f.run_kwh * power.carbon_g_per_kwh / 1000;
  return f;
}

}  // namespace collsim::energy
