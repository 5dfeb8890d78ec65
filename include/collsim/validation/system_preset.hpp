#pragma once
// The hardware behind an nccl-tests log: GPUs and how they are linked inside a node (NVLink
// through NVSwitches, a direct NVLink mesh, or PCIe), the NICs of a node and the network
// between nodes. Presets are built in (list with `collsim validate --list-systems`); each
// becomes a topo::Topology for any number of nodes.
//
// The topology a preset makes for N nodes (names as in the Topology):
//   node i: GPUs "n<i>g<j>" (hosts, server i), each linked to the node's switch "nvs<i>" by
//           its whole NVLink (or PCIe) bandwidth per direction; the NVSwitch is a NvSwitch
//           node, a PCIe complex or an NVLink mesh a Switch node (the mesh's per-pair limit is
//           not modelled: a GPU's NVLinks are pooled).
//   N > 1:  the node switch has one link per NIC that the node's GPUs in the job are close to
//           (node_nics in nic_affinity.hpp: a job on 1 GPU of a DGX gets 1 NIC, not 8); job
//           NIC r of every node goes to rail switch "rail<r>" (rail-optimised, one leaf per
//           rail, non-blocking). A GPU reaches any of these NICs through the node switch (as
//           NCCL's PXN does); which one a message takes is the fabric's routing: validate's
//           rail routing keeps it to the NIC of its op (its channel's, or for point-to-point
//           its GPU's own, as NCCL binds them).
// An NVLink domain larger than a server (GB200/GB300 NVL72) is one "node" here: NCCL treats
// the whole domain as one node too (MNNVL).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collsim/collectives/system_model.hpp"
#include "collsim/common/sim_time.hpp"
#include "collsim/topo/topology.hpp"

namespace collsim::validation {

enum class IntraNode : std::uint8_t { NvSwitch, NvLinkMesh, Pcie };
std::string_view to_string(IntraNode k);

// How NCCL's messages cross the network between nodes (its net plugin and the NIC's protocol).
enum class NetTransport : std::uint8_t {
  InfiniBand,  // RDMA with GPUDirect over InfiniBand (NCCL's IB transport); may have SHARP
  Roce,        // the same RDMA over Ethernet (RoCE), no SHARP
  Efa,         // AWS EFA: SRD through libfabric and the aws-ofi-nccl plugin
  Tcpx,        // GCP GPUDirect-TCPX (A3 High): TCP with GPU memory as the payload's destination
  Tcpxo,       // GCP GPUDirect-TCPXO (A3 Mega): TCPX offloaded to the NIC
  Socket,      // NCCL's socket transport: TCP through host memory (NCCL_NET=Socket)
};
std::string_view to_string(NetTransport t);  // ib, roce, efa, tcpx, tcpxo, socket
std::optional<NetTransport> net_transport_from_name(std::string_view name);

// What is known of a transport's cost where the system says nothing: the per-message latency
// beyond the links and the share of the NIC line rate it carries data at, each with where it
// comes from; nothing where no figure is published (a system file must then give it).
struct TransportCosts {
  std::optional<Duration> message_latency;
  std::optional<double> efficiency;
  std::string source;
};
TransportCosts transport_costs(NetTransport t);

struct SystemPreset {
  std::string name;           // "dgx-h100"
  std::string description;    // one line, with the source of the numbers
  std::string gpu;            // "H100": matched against device lines
  collectives::GpuArch arch = collectives::GpuArch::Hopper;
  std::uint32_t gpus_per_node = 8;      // GPUs in one NVLink (or PCIe) domain
  IntraNode intra = IntraNode::NvSwitch;
  double gpu_link_gbytes = 450;         // per GPU and direction, GB/s (NVLink or PCIe)
  SimTime gpu_link_latency = SimTime::ns(120);
  bool nvls = false;                    // NVSwitch in-switch reduction (Hopper and later NVSwitch)
  std::uint32_t nics_per_node = 8;
  double nic_gbits = 400;               // line rate per NIC, Gb/s
  SimTime nic_latency = SimTime::ns(600);  // per link (cable, transceivers, half a switch)
  std::uint32_t channels = 16;          // NCCL coll channels (what INFO logs show for such systems)
  // One-way latency a message adds crossing the network beyond the links' own: 0 for
  // InfiniBand/RoCE, whose few µs the calibration's net_latency_us covers. AWS EFA goes through
  // SRD, libfabric and the aws-ofi-nccl plugin's proxy, which costs tens of µs per message
  // (kEfaMessageLatency in system_presets.cpp says where the number comes from).
  Duration net_message_latency = Duration::zero();
  // The network plugin sets NCCL_PROTO=simple when the job spans nodes: aws-ofi-nccl does so on
  // p4d/p4de, whose EFA (v1) does not deliver a message's bytes in order, which LL and LL128
  // need (aws-ofi-nccl issue #76; PR #280 exempted p5). NCCL then tunes the algorithm alone.
  bool network_simple_only = false;
  // The network reduces in its switches (InfiniBand SHARP), so NCCL can run CollNet
  // (NCCL_COLLNET_ENABLE=1 with the SHARP plugin); validate's collnet_chain needs it.
  bool sharp = false;
  NetTransport transport = NetTransport::InfiniBand;
  // The share of a NIC's line rate the transport carries data at, before any calibration's
  // nic_efficiency (TCPX: ~150 of 200 Gb/s, transport_costs).
  double net_efficiency = 1.0;
  // What a NIC carries, Gb/s: its line rate as far as the transport fills it.
  double nic_data_gbits() const { return nic_gbits * net_efficiency; }
  // GPUs per server when one NVLink domain spans several servers (an NVL72 rack's trays of 4,
  // which the log's device lines show as hosts): a job on such servers is one node of up to
  // gpus_per_node GPUs. 0: the domain is one server.
  std::uint32_t gpus_per_host = 0;
  // NIC k serves GPUs nic_gpus[k] (the GPUs closest to it); empty: default_nic_gpus
  // (nic_affinity.hpp), one NIC per GPU or consecutive GPUs sharing one.
  std::vector<std::vector<std::uint32_t>> nic_gpus{};
};

// The built-in presets, in display order.
const std::vector<SystemPreset>& system_presets();
// By name; nothing when unknown.
std::optional<SystemPreset> find_system_preset(std::string_view name);

// What the tuning model needs: arch and NCCL's per-channel graph bandwidths for a run of
// `channels` channels (0: the preset's) on the first `gpus_used` GPUs of each node (0: all).
collectives::SystemModel tuning_system(const SystemPreset& p, std::uint32_t nodes, std::uint32_t channels = 0,
                                std::uint32_t gpus_used = 0);

// Link efficiencies scale the preset's line rates (see ModelParameters).
struct LinkScaling {
  double gpu_link = 1.0;
  double nic = 1.0;
  // With an NVLS engine (presets with nvls only): host "nvls<i>" on node i's switch, after
  // all GPUs (host index nodes*gpus_per_node + i), linked at gpus_per_node times the GPU
  // link rate times nvls (see nvls_allreduce.hpp).
  bool nvls_engine = false;
  double nvls = 0.85;
  // With SHARP aggregation (multi-node only, not with an NVLS engine): host "sharp<r>" on rail
  // switch r, after all GPUs (host index nodes*gpus_per_node + r), linked at the NIC rate
  // times the number of nodes (see collnet_chain_allreduce.hpp).
  bool sharp_engines = false;
  // Added to every crossing of the network (half to each of its two NIC links).
  Duration net_latency = Duration::zero();
  // Added to every hop from GPU to GPU, inside a node or across the network (half to each
  // GPU's link, as a hop leaves one GPU and enters another): a streaming protocol's step.
  SimTime hop_latency = SimTime::zero();
};
// The preset's network for `nodes` nodes with `gpus_per_node` GPUs each (0: the preset's).
// Throws std::invalid_argument for 0 nodes or more GPUs per node than the preset has.
topo::Topology make_system_topology(const SystemPreset& p, std::uint32_t nodes, std::uint32_t gpus_per_node = 0,
                                    LinkScaling scaling = {});

// The preset that fits a GPU name from the device lines and the GPUs per node; nothing when
// no preset has that GPU. `why` says how it was chosen.
std::optional<SystemPreset> infer_system_preset(std::string_view gpu_name, std::uint32_t gpus_per_node,
                                                std::string* why = nullptr);

}  // namespace collsim::validation
