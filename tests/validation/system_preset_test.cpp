// Presets, the topologies they make, their inference from device lines, and the emulated NVLS
// allreduce.

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "collsim/validation/nvls_model.hpp"
#include "collsim/validation/system_preset.hpp"

namespace collsim::validation {
namespace {

TEST(SystemPreset, TheIssuesSystemsExist) {
  for (const char* name : {"dgx-a100", "a100-efa", "dgx-h100", "h100-efa", "pcie-8gpu", "gb200-nvl72", "gb300-nvl72"})
    EXPECT_TRUE(find_system_preset(name)) << name;
  EXPECT_FALSE(find_system_preset("dgx-z100"));
  std::set<std::string> names;
  for (const SystemPreset& p : system_presets()) EXPECT_TRUE(names.insert(p.name).second) << p.name;
}

TEST(SystemPreset, PublishedNumbers) {
  // reference/nccl.md section 5: NVLink3 300 GB/s and NVLink4 450 GB/s per direction; p4de
  // 4x100G, p5 32x100G; only Hopper-and-later NVSwitch systems have NVLS.
  const SystemPreset a100 = *find_system_preset("dgx-a100"), h100 = *find_system_preset("dgx-h100");
  EXPECT_EQ(a100.gpu_link_gbytes, 300);
  EXPECT_EQ(a100.nics_per_node, 8u);
  EXPECT_EQ(a100.nic_gbits, 200);
  EXPECT_FALSE(a100.nvls);
  EXPECT_EQ(h100.gpu_link_gbytes, 450);
  EXPECT_EQ(h100.nic_gbits, 400);
  EXPECT_TRUE(h100.nvls);
  EXPECT_EQ(find_system_preset("a100-efa")->nics_per_node * find_system_preset("a100-efa")->nic_gbits, 400);
  EXPECT_EQ(find_system_preset("h100-efa")->nics_per_node * find_system_preset("h100-efa")->nic_gbits, 3200);
  EXPECT_EQ(find_system_preset("pcie-8gpu")->intra, IntraNode::Pcie);
  EXPECT_EQ(find_system_preset("gb200-nvl72")->gpus_per_node, 72u);
  // SHARP on the InfiniBand presets only: EFA and RoCE do not reduce in the network.
  for (const SystemPreset& p : system_presets())
    EXPECT_EQ(p.sharp, p.description.find("InfiniBand") != std::string::npos) << p.name;
  EXPECT_TRUE(a100.sharp);
  EXPECT_FALSE(find_system_preset("h100-efa")->sharp);
}

TEST(SystemTopology, TwoDgxH100Nodes) {
  const topo::Topology t = make_system_topology(*find_system_preset("dgx-h100"), 2);
  // 16 GPUs; 2 NVSwitches and 8 rails; 16 NVLinks and 2 x 8 NIC links.
  EXPECT_EQ(t.num_hosts(), 16u);
  EXPECT_EQ(t.num_switches(), 10u);
  ASSERT_EQ(t.links().size(), 32u);
  EXPECT_EQ(t.node(t.host(9)).server, 1u);
  EXPECT_EQ(t.node(t.host(9)).name, "n1g1");
  // 450 GB/s = 3600 Gb/s per GPU; 400 Gb/s per NIC link.
  EXPECT_EQ(t.link(0).bandwidth.bps(), 3'600'000'000'000);
  EXPECT_EQ(t.link(0).medium, topo::LinkMedium::NvLink);
  EXPECT_EQ(t.link(16).bandwidth.bps(), 400'000'000'000);
  EXPECT_EQ(t.node(*t.find("nvs0")).kind, topo::NodeKind::NvSwitch);
}

TEST(SystemTopology, TheTransportFillsItsShareOfTheNicsLineRate) {
  SystemPreset tcpx = *find_system_preset("dgx-h100");
  tcpx.nic_gbits = 200;
  tcpx.net_efficiency = 0.75;
  // 200 Gb/s at 75%, then a calibration's nic_efficiency of 0.8 on top: 120 Gb/s.
  const topo::Topology t = make_system_topology(tcpx, 2, 8, {1.0, 0.8});
  EXPECT_EQ(t.link(16).bandwidth.bps(), 120'000'000'000);
}

TEST(SystemTopology, OneNodeHasNoNetworkAndScalingApplies) {
  const topo::Topology t = make_system_topology(*find_system_preset("dgx-a100"), 1, 4, {0.5, 1.0});
  EXPECT_EQ(t.num_hosts(), 4u);
  EXPECT_EQ(t.num_switches(), 1u);
  // 300 GB/s * 8 * 0.5 = 1200 Gb/s.
  EXPECT_EQ(t.link(0).bandwidth.bps(), 1'200'000'000'000);
  EXPECT_THROW(make_system_topology(*find_system_preset("dgx-a100"), 0), std::invalid_argument);
  LinkScaling slow;
  slow.net_latency = Duration::us(3);
  // A crossing is two NIC links: each gets the preset's 500 ns plus half of 3000 ns.
  const topo::Topology two = make_system_topology(*find_system_preset("dgx-a100"), 2, 8, slow);
  EXPECT_EQ(two.links().back().latency, SimTime::ns(2000));
  EXPECT_THROW(make_system_topology(*find_system_preset("dgx-a100"), 1, 9), std::invalid_argument);
}

TEST(SystemTopology, SwitchesHoldEveryPortsPauseThreshold) {
  // Validate pauses an ingress port at up to 2 MiB (32 KiB packets) and runs lossless: a switch
  // must buffer that on every port at once, or it drops packets nothing resends (two NVL72
  // racks: 145 ports on a rack's switch, where 32 MiB dropped 139 packets of a 1 GiB tree).
  const topo::Topology t = make_system_topology(*find_system_preset("gb200-nvl72"), 2);
  for (topo::NodeId id = 0; id < t.nodes().size(); ++id) {
    const topo::Node& node = t.node(id);
    if (node.kind == topo::NodeKind::Host) continue;
    EXPECT_GE(node.params.buffer_bytes, t.ports(id).size() * 2 * (std::uint64_t{2} << 20)) << node.name;
  }
}

TEST(SystemTopology, NvlsEngineHost) {
  LinkScaling s;
  s.nvls_engine = true;
  s.nvls = 0.5;
  const topo::Topology t = make_system_topology(*find_system_preset("dgx-h100"), 1, 8, s);
  ASSERT_EQ(t.num_hosts(), 9u);
  EXPECT_EQ(t.node(t.host(8)).name, "nvls0");
  // The engine's link: 8 GPUs * 3600 Gb/s * 0.5.
  EXPECT_EQ(t.link(t.ports(t.host(8)).at(0).link).bandwidth.bps(), 14'400'000'000'000);
  // Presets without NVLS get no engine.
  EXPECT_EQ(make_system_topology(*find_system_preset("dgx-a100"), 1, 8, s).num_hosts(), 8u);
}

TEST(SystemPreset, InferenceFromDeviceLines) {
  EXPECT_EQ(infer_system_preset("NVIDIA H100 80GB HBM3", 8)->name, "dgx-h100");
  EXPECT_EQ(infer_system_preset("NVIDIA H100", 4)->name, "h100-4gpu-ib");
  EXPECT_EQ(infer_system_preset("NVIDIA A100-SXM4-80GB", 8)->name, "dgx-a100");
  EXPECT_EQ(infer_system_preset("NVIDIA GB300", 4)->name, "gb300-4gpu-rdma");
  EXPECT_EQ(infer_system_preset("NVIDIA GB200", 4)->name, "gb200-nvl72");
  EXPECT_EQ(infer_system_preset("NVIDIA B200", 8)->name, "dgx-b200");  // not the GB200 rack
  EXPECT_EQ(infer_system_preset("NVIDIA GB10", 1)->name, "dgx-spark");
  EXPECT_EQ(infer_system_preset("NVIDIA RTX 6000D", 8)->name, "pcie-8gpu");
  std::string why;
  EXPECT_FALSE(infer_system_preset("NVIDIA Graphics Device", 4, &why));
}

TEST(SystemPreset, TuningSystem) {
  const SystemPreset h = *find_system_preset("dgx-h100");
  const collectives::SystemModel one = tuning_system(h, 1), two = tuning_system(h, 2);
  // 450 GB/s over 24 channels; across nodes 8 x 50 GB/s over 24 channels.
  EXPECT_DOUBLE_EQ(one.intra_gbytes_per_s, 450.0 / 24);
  EXPECT_DOUBLE_EQ(two.inter_gbytes_per_s, 400.0 / 24);
  EXPECT_EQ(one.arch, collectives::GpuArch::Hopper);
  EXPECT_EQ(two.inter_latency_us, 0.0);  // InfiniBand: the calibration's net latency covers it
  // The run's channels share the same links: a 2x4 run of 8 channels on 4x 200G per node
  // gets 450/8 GB/s NVLink and 100/8 GB/s network per channel.
  const collectives::SystemModel eight = tuning_system(*find_system_preset("h100-4gpu-ib"), 2, 8);
  EXPECT_DOUBLE_EQ(eight.intra_gbytes_per_s, 450.0 / 8);
  EXPECT_DOUBLE_EQ(eight.inter_gbytes_per_s, 100.0 / 8);
}

TEST(SystemPreset, EfaHasItsOwnMessageLatency) {
  // EFA presets carry a network message latency (fitted on log 04), which NCCL's model adds to
  // every inter-node step and the topology to every network crossing (half per NIC link).
  const SystemPreset efa = *find_system_preset("h100-efa"), ib = *find_system_preset("dgx-h100");
  EXPECT_GT(efa.net_message_latency, Duration::us(5.0));
  EXPECT_EQ(find_system_preset("a100-efa")->net_message_latency, efa.net_message_latency);
  EXPECT_EQ(ib.net_message_latency, Duration::zero());
  EXPECT_EQ(tuning_system(efa, 2).inter_latency_us, efa.net_message_latency.microseconds());
  const topo::Topology t = make_system_topology(efa, 2);
  const topo::Topology u = make_system_topology(ib, 2);
  // The last link is a NIC link in both (node switch to rail): 1000 ns + latency/2 for EFA.
  EXPECT_EQ(t.links().back().latency.picoseconds(),
            std::llround((1000 + efa.net_message_latency.nanoseconds() / 2) * 1000));
  EXPECT_EQ(u.links().back().latency.picoseconds(), 600'000);
}

TEST(NvlsModel, ModelTime) {
  // NVLSTree on 2 nodes x 8 (n = 16) with 10 us network latency: 25 + 2 * 1 * (20.9 + 10) us,
  // same bus bandwidth, algbw = bus * 16/30.
  const double bus = 24 * (450.0 / 24) * 0.85 * 23.0 / 24 * 2;
  EXPECT_NEAR(
      nvls_model_time(*find_system_preset("dgx-h100"), 16, 24, 1'000'000'000, 2, Duration::us(10.0)).microseconds(),
              25.0 + 2 * 30.9 + 1e9 / (1000 * bus * 16 / 30), 1e-9);
  // Hopper: bus bw = 24 ch * 450/24 * 0.85 * 23/24 * 2 = 733.125 GB/s; algbw = bus * 8/14.
  const double alg = 24 * (450.0 / 24) * 0.85 * 23.0 / 24 * 2 * 8 / 14;
  EXPECT_NEAR(nvls_model_time(*find_system_preset("dgx-h100"), 8, 24, 1'000'000'000).microseconds(),
              25.0 + 1e9 / (1000 * alg), 1e-9);
}

}  // namespace
}  // namespace collsim::validation
