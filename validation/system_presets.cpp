#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "collsim/logging/logging.hpp"
#include "collsim/validation/nic_affinity.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {
namespace {

SystemPreset preset(std::string name, std::string description, std::string gpu, collectives::GpuArch arch,
                    std::uint32_t gpus, IntraNode intra, double gpu_gbytes, std::int64_t gpu_latency_ns, bool nvls,
                    std::uint32_t nics, double nic_gbits, std::int64_t nic_latency_ns, std::uint32_t channels) {
  return {std::move(name), std::move(description), std::move(gpu), arch, gpus, intra, gpu_gbytes,
          SimTime::ns(gpu_latency_ns), nvls, nics, nic_gbits, SimTime::ns(nic_latency_ns), channels};
}

// EFA's one-way message latency across the network, fitted by hand on the sizes below 64 KiB
// of log 04 (2x AWS p5, EFA v2; which makes 04 a training log): with it the simulated 8 B
// allreduce (2-node tree, LL: one crossing up, one down) takes ~69 us as measured, where the
// IB-like presets give ~25 us. p4d/p4de (log 03, EFA v1) is validated with the same number.
constexpr Duration kEfaMessageLatency = Duration::us(14.5);

SystemPreset efa(SystemPreset p) {
  p.transport = NetTransport::Efa;
  p.net_message_latency = kEfaMessageLatency;
  return p;
}

SystemPreset roce(SystemPreset p) {
  p.transport = NetTransport::Roce;
  return p;
}

// An NVL72 rack: one NVLink domain over 18 trays of 4 GPUs, each tray a host of its own.
SystemPreset trays_of_4(SystemPreset p) {
  p.gpus_per_host = 4;
  return p;
}

SystemPreset with_sharp(SystemPreset p) {
  p.sharp = true;
  return p;
}

SystemPreset simple_only_across_nodes(SystemPreset p) {
  p.network_simple_only = true;
  return p;
}

// Numbers from reference/nccl.md section 5 (vendor line rates) unless said otherwise.
std::vector<SystemPreset> build() {
  using collectives::GpuArch;
  return {
      with_sharp(preset("dgx-a100", "DGX/HGX A100: 8 GPUs, NVSwitch NVLink3 300 GB/s per GPU, 8x HDR 200G InfiniBand",
                        "A100", GpuArch::Ampere, 8, IntraNode::NvSwitch, 300, 100, false, 8, 200, 500, 24)),
      simple_only_across_nodes(efa(preset("a100-efa",
                                          "HGX A100 as AWS p4d/p4de: NVLink3 300 GB/s per GPU, 4x 100G EFA NICs, "
                                          "Simple protocol across nodes",
                                          "A100", GpuArch::Ampere, 8, IntraNode::NvSwitch, 300, 100, false, 4, 100,
                                          1000, 24))),
      with_sharp(preset("dgx-h100", "DGX/HGX H100: 8 GPUs, NVSwitch NVLink4 450 GB/s per GPU, NVLS, 8x NDR 400G InfiniBand",
                        "H100", GpuArch::Hopper, 8, IntraNode::NvSwitch, 450, 120, true, 8, 400, 600, 24)),
      // p5's 32 EFA devices are 4 per GPU, which the aws-ofi-nccl plugin stripes as one NCCL
      // NIC of 400 Gb/s: a channel is bound to it as to one NDR NIC.
      efa(preset("h100-efa",
                 "HGX H100 as AWS p5: NVLink4 450 GB/s per GPU, NVLS, 32x 100G EFA NICs (4 per GPU, striped as "
                 "one 400G NIC)",
                 "H100", GpuArch::Hopper, 8, IntraNode::NvSwitch, 450, 120, true, 8, 400, 1000, 24)),
      // Log 25's INFO lines show 8 collnet channels on it: NCCL found the SHARP plugin.
      with_sharp(preset("h100-4gpu-ib",
                        "4x H100 SXM per node, direct NVLink4 mesh (no NVSwitch, no NVLS; 3 peers x 6 links), 4x HDR "
                        "200G InfiniBand (SURF Snellius gcn nodes)",
                        "H100", GpuArch::Hopper, 4, IntraNode::NvLinkMesh, 450, 120, false, 4, 200, 600, 24)),
      roce(preset("pcie-8gpu",
                  "8-GPU PCIe Gen5 server (no NVLink; ~55 GB/s per GPU and direction through PCIe switches), 8x 400G "
                  "RoCE NICs",
                  "RTX", GpuArch::Blackwell, 8, IntraNode::Pcie, 55, 500, false, 8, 400, 600, 16)),
      preset("dgx-b200",
             "DGX/HGX B200: 8 GPUs, NVSwitch NVLink5 900 GB/s per GPU, NVLS, 8x 400G ConnectX-7 (channels assumed)",
             "B200", GpuArch::Blackwell, 8, IntraNode::NvSwitch, 900, 150, true, 8, 400, 600, 32),
      trays_of_4(preset("gb200-nvl72", "GB200 NVL72 rack as one NVLink domain: 72 GPUs (18 trays of 4), NVLink5 "
                        "900 GB/s per GPU, NVLS, one 400G NIC per GPU between racks", "GB200", GpuArch::Blackwell, 72,
                        IntraNode::NvSwitch, 900, 150, true, 72, 400, 600, 32)),
      trays_of_4(preset("gb300-nvl72", "GB300 NVL72 rack as one NVLink domain: 72 GPUs (18 trays of 4), NVLink5 "
                        "900 GB/s per GPU, NVLS, one 800G NIC per GPU between racks", "GB300", GpuArch::Blackwell, 72,
                        IntraNode::NvSwitch, 900, 150, true, 72, 800, 600, 32)),
      roce(preset("gb300-4gpu-rdma",
                  "GB300 trays of 4 GPUs in separate NVLink domains (GCP A4X Max): NVLink5 900 GB/s inside a tray, "
                  "4x 800G RDMA (RoCE) NICs between trays (NIC speed assumed: ConnectX-8)",
                  "GB300", GpuArch::Blackwell, 4, IntraNode::NvSwitch, 900, 150, false, 4, 800, 600, 16)),
      roce(preset("dgx-spark", "DGX Spark (GB10): 1 GPU per node, one ConnectX-7 200G RoCE link between nodes", "GB10",
                  GpuArch::Blackwell, 1, IntraNode::Pcie, 100, 500, false, 1, 200, 600, 4)),
  };
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view to_string(IntraNode k) {
  switch (k) {
    case IntraNode::NvSwitch: return "nvswitch";
    case IntraNode::NvLinkMesh: return "nvlink-mesh";
    case IntraNode::Pcie: return "pcie";
  }
  return "nvswitch";
}

std::string_view to_string(NetTransport t) {
  switch (t) {
    case NetTransport::InfiniBand: return "ib";
    case NetTransport::Roce: return "roce";
    case NetTransport::Efa: return "efa";
    case NetTransport::Tcpx: return "tcpx";
    case NetTransport::Tcpxo: return "tcpxo";
    case NetTransport::Socket: return "socket";
  }
  return "ib";
}

std::optional<NetTransport> net_transport_from_name(std::string_view name) {
  for (NetTransport t : {NetTransport::InfiniBand, NetTransport::Roce, NetTransport::Efa, NetTransport::Tcpx,
                         NetTransport::Tcpxo, NetTransport::Socket})
    if (to_string(t) == name) return t;
  return std::nullopt;
}

TransportCosts transport_costs(NetTransport t) {
  switch (t) {
    case NetTransport::InfiniBand:
    case NetTransport::Roce:
      return {Duration::zero(), 1.0, "RDMA with GPUDirect: no cost beyond the links' that calibration's net_latency_us does not fit"};
    case NetTransport::Efa:
      return {kEfaMessageLatency, 1.0, "fitted on the small sizes of log 04 (2x AWS p5)"};
    case NetTransport::Tcpx:
      return {std::nullopt, 0.75,
              "GCP expects ~150 Gb/s per 200G NIC with GPUDirect-TCPX on A3 High; no per-message latency published"};
    case NetTransport::Tcpxo:
      return {std::nullopt, std::nullopt, "no published figures for GPUDirect-TCPXO"};
    case NetTransport::Socket:
      return {std::nullopt, std::nullopt, "no published figures for NCCL's socket transport"};
  }
  return {};
}

const std::vector<SystemPreset>& system_presets() {
  static const std::vector<SystemPreset> presets = build();
  return presets;
}

std::optional<SystemPreset> find_system_preset(std::string_view name) {
  for (const SystemPreset& p : system_presets())
    if (p.name == name) return p;
  return std::nullopt;
}

collectives::SystemModel tuning_system(const SystemPreset& p, std::uint32_t nodes, std::uint32_t channels_run,
                                std::uint32_t gpus_used) {
  collectives::SystemModel s;
  s.arch = p.arch;
  // The run's channels share the node's links: per-channel bandwidth times channels is the
  // link, whatever the channel count (NCCL's per-channel caps then depend on the count).
  const double channels = std::max<std::uint32_t>(1, channels_run == 0 ? p.channels : channels_run);
  s.intra_gbytes_per_s = p.gpu_link_gbytes / channels;
  // Every channel crosses the network once per direction through one NIC of the job's GPUs.
  const double net = (nodes > 1 ? node_nics(p, gpus_used == 0 ? p.gpus_per_node : gpus_used).count : 0) *
                     p.nic_gbits / 8.0;
  s.inter_gbytes_per_s = nodes > 1 ? std::min(s.intra_gbytes_per_s, net / channels) : s.intra_gbytes_per_s;
  // NCCL adds the network's own latency (graph latencyInter, from the net plugin) to every
  // inter-node step of its model.
  s.inter_latency_us = p.net_message_latency.microseconds();
  return s;
}

std::optional<SystemPreset> infer_system_preset(std::string_view gpu_name, std::uint32_t gpus_per_node,
                                                std::string* why) {
  const std::string g = lower(gpu_name);
  auto pick = [&](const char* name, const std::string& reason) {
    if (why) *why = reason;
    logging::logger("validation").info("system preset {} inferred from GPU '{}': {}", name, gpu_name, reason);
    return find_system_preset(name);
  };
  const std::string per = std::to_string(gpus_per_node) + " GPU(s) per node";
  if (g.find("gb300") != std::string::npos)
    return gpus_per_node <= 4 ? pick("gb300-4gpu-rdma", "GB300 with " + per + ": trays in separate NVLink domains")
                              : pick("gb300-nvl72", "GB300 with " + per + ": one NVL72 domain");
  if (g.find("gb200") != std::string::npos) return pick("gb200-nvl72", "GB200: NVL72 racks");
  if (g.find("b200") != std::string::npos) return pick("dgx-b200", "B200 with " + per + ": DGX/HGX B200 (8x 400G assumed)");
  if (g.find("gb10") != std::string::npos) return pick("dgx-spark", "GB10: DGX Spark");
  if (g.find("h100") != std::string::npos || g.find("h200") != std::string::npos || g.find("h800") != std::string::npos)
    return gpus_per_node == 4 ? pick("h100-4gpu-ib", "H100 with 4 GPUs per node: NVLink mesh, no NVSwitch")
                              : pick("dgx-h100", "H100 with " + per + ": DGX/HGX H100 (8x 400G assumed)");
  if (g.find("a100") != std::string::npos || g.find("a800") != std::string::npos)
    return pick("dgx-a100", "A100 with " + per + ": DGX/HGX A100 (8x HDR 200G assumed)");
  if (g.find("rtx") != std::string::npos || g.find("l40") != std::string::npos)
    return pick("pcie-8gpu", "PCIe-only GPU (" + std::string(gpu_name) + ")");
  return std::nullopt;
}

}  // namespace collsim::validation
