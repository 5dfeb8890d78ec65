#include "collsim/energy/step_energy.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace collsim::energy {
namespace {

using topo::LinkMedium;
using topo::NodeKind;

// Only what a test names draws power.
PowerModel nothing() { return PowerModel{}; }

// h0 - s0 - h1, 100 Gb/s.
topo::Topology one_switch() {
  topo::Topology t;
  const auto h0 = t.add_node("h0", NodeKind::Host, {}, 0);
  const auto h1 = t.add_node("h1", NodeKind::Host, {}, 1);
  const auto s0 = t.add_node("s0", NodeKind::Switch);
  t.add_link(h0, s0, Bandwidth::gbps(100), SimTime::ns(100));
  t.add_link(h1, s0, Bandwidth::gbps(100), SimTime::ns(100));
  return t;
}

TEST(StepEnergy, IdleTenMilliseconds) {
  PowerModel p = nothing();
  p.gpu = {400, 200, 50};
  p.nic_w = 20;
  p.optics_pj_per_bit = 10;         // 1 W per end at 100 Gb/s
  p.switch_static_pj_per_bit = 5;   // 0.5 W per port at 100 Gb/s
  p.switch_pj_per_bit = 1000;       // nothing moves: no effect
  p.host_w = 100;
  const std::vector<GpuActivity> gpus{{0, SimTime::zero(), SimTime::zero()}, {1, SimTime::zero(), SimTime::zero()}};
  const StepEnergy e = account_step(one_switch(), p, SimTime::ms(10), gpus, std::vector<std::uint64_t>(4, 0));
  // GPUs 2 x 50 W, NICs 2 x 20 W, optics 2 links x 2 ends x 1 W, switch 2 ports x 0.5 W,
  // servers 2 x 100 W: 2 x 10 ms each.
  EXPECT_DOUBLE_EQ(e.gpu_idle_j, 1.0);
  EXPECT_DOUBLE_EQ(e.gpu_compute_j + e.gpu_comm_j, 0.0);
  EXPECT_DOUBLE_EQ(e.nic_j, 0.4);
  EXPECT_DOUBLE_EQ(e.optics_j, 0.04);
  EXPECT_DOUBLE_EQ(e.switch_static_j, 0.01);
  EXPECT_DOUBLE_EQ(e.switch_traffic_j, 0.0);
  EXPECT_DOUBLE_EQ(e.host_j, 2.0);
  EXPECT_NEAR(e.it_j(), 1.0 + 0.4 + 0.04 + 0.01 + 2.0, 1e-12);
  EXPECT_EQ(e.gpus, 2u);
  EXPECT_EQ(e.nics, 2u);
  EXPECT_EQ(e.switch_ports, 2u);
  EXPECT_EQ(e.servers, 2u);
  EXPECT_DOUBLE_EQ(e.per_gpu_min_j, 0.5);
  EXPECT_DOUBLE_EQ(e.per_gpu_max_j, 0.5);
}

TEST(StepEnergy, ComputeOnlyStep) {
  PowerModel p = nothing();
  p.gpu = {400, 200, 60};
  // One GPU computes 6 ms of a 10 ms step, the other communicates 2 ms of it.
  const std::vector<GpuActivity> gpus{{0, SimTime::ms(6), SimTime::zero()}, {1, SimTime::zero(), SimTime::ms(2)}};
  const StepEnergy e = account_step(one_switch(), p, SimTime::ms(10), gpus, {});
  EXPECT_DOUBLE_EQ(e.gpu_compute_j, 400 * 0.006);               // 2.4 J
  EXPECT_DOUBLE_EQ(e.gpu_comm_j, 200 * 0.002);                  // 0.4 J
  EXPECT_NEAR(e.gpu_idle_j, 60 * 0.004 + 60 * 0.008, 1e-12);    // 0.72 J
  EXPECT_NEAR(e.per_gpu_max_j, 2.4 + 0.24, 1e-12);
  EXPECT_NEAR(e.per_gpu_min_j, 0.4 + 0.48, 1e-12);
  EXPECT_DOUBLE_EQ(e.network_j(), 0.0);
}

TEST(StepEnergy, OneFlowAcrossTwoSwitches) {
  // h0 - s0 - s1 - h1 and an idle h2 on s1 that the job does not use.
  topo::Topology t;
  const auto h0 = t.add_node("h0", NodeKind::Host, {}, 0);
  const auto h1 = t.add_node("h1", NodeKind::Host, {}, 1);
  const auto h2 = t.add_node("h2", NodeKind::Host, {}, 2);
  const auto s0 = t.add_node("s0", NodeKind::Switch);
  const auto s1 = t.add_node("s1", NodeKind::Switch);
  const auto l0 = t.add_link(h0, s0, Bandwidth::gbps(100), SimTime::ns(100));
  const auto l1 = t.add_link(s1, s0, Bandwidth::gbps(400), SimTime::ns(100));  // a = s1: the flow goes b -> a
  const auto l2 = t.add_link(s1, h1, Bandwidth::gbps(100), SimTime::ns(100));
  t.add_link(h2, s1, Bandwidth::gbps(100), SimTime::ns(100));
  std::vector<std::uint64_t> bytes(2 * t.links().size(), 0);
  bytes[2 * l0] = 1'000'000;      // h0 -> s0
  bytes[2 * l1 + 1] = 1'000'000;  // s0 -> s1
  bytes[2 * l2] = 1'000'000;      // s1 -> h1
  bytes[2 * l0 + 1] = 10'000;     // ACKs back
  bytes[2 * l1] = 10'000;
  bytes[2 * l2 + 1] = 10'000;
  PowerModel p = nothing();
  p.switch_pj_per_bit = 3;
  p.nic_pj_per_bit = 2;
  p.optics_pj_per_bit = 10;
  const std::vector<GpuActivity> gpus{{0, SimTime::zero(), SimTime::us(80)}, {1, SimTime::zero(), SimTime::us(80)}};
  const StepEnergy e = account_step(t, p, SimTime::us(100), gpus, bytes);
  // Each switch forwards 1,010,000 bytes (the data one way, the ACKs the other).
  EXPECT_NEAR(e.switch_traffic_j, 2 * 1'010'000 * 8 * 3e-12, 1e-15);
  // Each NIC sends or receives 1,010,000 bytes.
  EXPECT_NEAR(e.nic_j, 2 * 1'010'000 * 8 * 2e-12, 1e-15);
  // The three links the flow crossed, both ends lit: 2 x (1 + 1 + 4 W) x 100 us. h2's link is not the job's.
  EXPECT_NEAR(e.optics_j, 2 * (1 + 4 + 1) * 100e-6, 1e-15);
  EXPECT_EQ(e.network_links, 3u);
  EXPECT_EQ(e.switch_ports, 4u);
  EXPECT_EQ(e.nics, 2u);
}

TEST(StepEnergy, NvSwitchPortsOfTheJobsGpus) {
  topo::Topology t;
  const auto g0 = t.add_node("g0", NodeKind::Host, {}, 0);
  const auto g1 = t.add_node("g1", NodeKind::Host, {}, 0);
  const auto g2 = t.add_node("g2", NodeKind::Host, {}, 0);
  const auto nv = t.add_node("nv", NodeKind::NvSwitch);
  for (const auto g : {g0, g1, g2}) t.add_link(g, nv, Bandwidth::gbps(2400), SimTime::ns(100), LinkMedium::NvLink);
  PowerModel p = nothing();
  p.nvswitch_port_w = 5.5;
  p.host_w = 1000;
  const std::vector<GpuActivity> gpus{{0, SimTime::zero(), SimTime::zero()}, {1, SimTime::zero(), SimTime::zero()}};
  const StepEnergy e = account_step(t, p, SimTime::s(1), gpus, {});
  EXPECT_DOUBLE_EQ(e.nvswitch_j, 2 * 5.5);  // the two GPUs' ports only
  EXPECT_EQ(e.nvswitch_ports, 2u);
  EXPECT_DOUBLE_EQ(e.host_j, 1000);         // one server
  EXPECT_EQ(e.nics, 0u);                    // NVLink is not a NIC
}

TEST(StepEnergy, BadInputIsAnError) {
  const PowerModel p = nothing();
  const topo::Topology t = one_switch();
  const std::vector<GpuActivity> off_topology{{7, SimTime::zero(), SimTime::zero()}};
  EXPECT_THROW(account_step(t, p, SimTime::ms(1), off_topology, {}), std::invalid_argument);
  const std::vector<GpuActivity> too_busy{{0, SimTime::ms(1), SimTime::ms(1)}};
  EXPECT_THROW(account_step(t, p, SimTime::ms(1), too_busy, {}), std::invalid_argument);
  const std::vector<GpuActivity> fine{{0, SimTime::zero(), SimTime::zero()}};
  EXPECT_THROW(account_step(t, p, SimTime::ms(1), fine, std::vector<std::uint64_t>(3, 0)), std::invalid_argument);
}

TEST(StepEnergy, FootprintOfARun) {
  // 1 kWh of IT energy in a 1-hour step, PUE 1.5, 400 g/kWh, 10 steps.
  StepEnergy e;
  e.step = SimTime::s(3600);
  e.gpu_compute_j = 3.6e6;
  PowerModel p;
  p.pue = 1.5;
  p.carbon_g_per_kwh = 400;
  const Footprint f = footprint(e, p, 10);
  EXPECT_DOUBLE_EQ(f.facility_j, 5.4e6);
  EXPECT_DOUBLE_EQ(f.average_w, 1500);
  EXPECT_DOUBLE_EQ(f.co2e_g, 600);
  EXPECT_DOUBLE_EQ(f.run_kwh, 15);
  EXPECT_DOUBLE_EQ(f.run_co2e_kg, 6);
}

}  // namespace
}  // namespace collsim::energy
