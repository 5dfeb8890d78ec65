#include <cmath>
#include <stdexcept>

#include "collsim/validation/nic_affinity.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {
namespace {

Bandwidth gbits(double v) { return Bandwidth::bits_per_second(static_cast<std::int64_t>(std::llround(v * 1e9))); }
// Link latencies add up in nanoseconds and go to the nearest picosecond.
SimTime nanoseconds(double v) { return SimTime::ps(static_cast<std::int64_t>(std::llround(v * 1e3))); }
double in_ns(SimTime t) { return static_cast<double>(t.picoseconds()) / 1e3; }

}  // namespace

topo::Topology make_system_topology(const SystemPreset& p, std::uint32_t nodes, std::uint32_t gpus_per_node,
                                    LinkScaling scaling) {
  if (nodes == 0) throw std::invalid_argument("a system needs at least one node");
  const std::uint32_t gpn = gpus_per_node == 0 ? p.gpus_per_node : gpus_per_node;
  if (gpn > p.gpus_per_node)
    throw std::invalid_argument(p.name + " has " + std::to_string(p.gpus_per_node) + " GPUs per node, not " +
                                std::to_string(gpn));
  if (!(scaling.gpu_link > 0 && scaling.nic > 0)) throw std::invalid_argument("link efficiencies must be positive");
  if (!(scaling.net_latency >= Duration::zero())) throw std::invalid_argument("the network latency must not be negative");
  if (!(scaling.hop_latency >= SimTime::zero())) throw std::invalid_argument("the hop latency must not be negative");
  topo::Topology t;
  t.set_name(p.name + "_" + std::to_string(nodes) + "x" + std::to_string(gpn));
  t.set_kind("system_preset");
  for (std::uint32_t n = 0; n < nodes; ++n)
    for (std::uint32_t g = 0; g < gpn; ++g)
      t.add_node("n" + std::to_string(n) + "g" + std::to_string(g), topo::NodeKind::Host, {}, n);
  const bool engines = scaling.nvls_engine && p.nvls;
  if (engines && !(scaling.nvls > 0)) throw std::invalid_argument("the NVLS efficiency must be positive");
  for (std::uint32_t n = 0; n < nodes && engines; ++n) t.add_node("nvls" + std::to_string(n), topo::NodeKind::Host, {}, n);
  if (scaling.sharp_engines && (nodes < 2 || engines))
    throw std::invalid_argument("SHARP aggregation needs at least 2 nodes and no NVLS engine");
  // The aggregation of a rail has no server of its own: it is placed with the last node's.
  const std::uint32_t nics = node_nics(p, gpn).count;
  for (std::uint32_t r = 0; r < nics && scaling.sharp_engines; ++r)
    t.add_node("sharp" + std::to_string(r), topo::NodeKind::Host, {}, nodes - 1);
  const topo::NodeKind node_kind = p.intra == IntraNode::NvSwitch ? topo::NodeKind::NvSwitch : topo::NodeKind::Switch;
  const topo::LinkMedium medium = p.intra == IntraNode::Pcie ? topo::LinkMedium::Pcie : topo::LinkMedium::NvLink;
  // NCCL's fabrics are lossless: PFC, not a full buffer, holds the data back. A switch of 145
  // ports (an NVL72 rack's, with its rails) and validate's pause threshold of up to 2 MiB per
  // ingress port would overflow the default 32 MiB and drop packets that nothing resends.
  topo::SwitchParams lossless;
  lossless.buffer_bytes = std::uint64_t{1} << 40;
  std::vector<topo::NodeId> node_switch;
  for (std::uint32_t n = 0; n < nodes; ++n)
    node_switch.push_back(t.add_node("nvs" + std::to_string(n), node_kind, lossless));
  std::vector<topo::NodeId> rails;
  if (nodes > 1)
    for (std::uint32_t r = 0; r < nics; ++r)
      rails.push_back(t.add_node("rail" + std::to_string(r), topo::NodeKind::Switch, lossless));
  const Bandwidth gpu_bw = gbits(p.gpu_link_gbytes * 8.0 * scaling.gpu_link);
  const double nic_gbits = p.nic_data_gbits() * scaling.nic;
  const Bandwidth nic_bw = gbits(nic_gbits);
  for (std::uint32_t n = 0; n < nodes; ++n)
    for (std::uint32_t g = 0; g < gpn; ++g)
      t.add_link(t.host(n * gpn + g), node_switch[n], gpu_bw,
                 nanoseconds(in_ns(p.gpu_link_latency) + in_ns(scaling.hop_latency) / 2), medium);
  const Bandwidth engine_bw = gbits(p.gpu_link_gbytes * 8.0 * gpn * scaling.nvls);
  for (std::uint32_t n = 0; n < nodes && engines; ++n)
    t.add_link(t.host(nodes * gpn + n), node_switch[n], engine_bw, p.gpu_link_latency, medium);
  for (std::uint32_t n = 0; n < nodes && !rails.empty(); ++n)
    for (topo::NodeId rail : rails)
      t.add_link(node_switch[n], rail, nic_bw,
                 nanoseconds(in_ns(p.nic_latency) +
                             (p.net_message_latency.nanoseconds() + scaling.net_latency.nanoseconds()) / 2));
  for (std::uint32_t r = 0; r < rails.size() && scaling.sharp_engines; ++r)
    t.add_link(t.host(nodes * gpn + r), rails[r], gbits(nic_gbits * nodes), p.nic_latency);
  return t;
}

}  // namespace collsim::validation
