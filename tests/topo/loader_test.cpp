// The YAML loader on valid files: every kind, defaults, units, overrides.

#include <gtest/gtest.h>

#include <string>

#include "collsim/topo/loader.hpp"
#include "topo_test_util.hpp"
#include "support/scratch_dir.hpp"

namespace collsim::topo {
namespace {

using testing::id;
using testing::parse;

TEST(Loader, FatTreeWithDefaultsAndOverrides) {
  const Topology t = parse(R"(
kind: fat_tree
k: 4
link: {bandwidth: 400Gbps, latency: 1.5us}
host_link: {bandwidth: 100 Gb/s}       # latency from link
switch: {latency: 250ns, buffer: 16MiB, shared_buffer: false}
)");
  EXPECT_EQ(t.name(), "t");  // file name without extension
  EXPECT_EQ(t.kind(), "fat_tree");
  EXPECT_EQ(t.num_hosts(), 16u);
  const Link& host = t.link(t.ports(t.host(0))[0].link);
  EXPECT_EQ(host.bandwidth, Bandwidth::gbps(100));
  EXPECT_EQ(host.latency, SimTime::ns(1500));
  const Link& up = t.link(t.ports(id(t, "core0"))[0].link);
  EXPECT_EQ(up.bandwidth, Bandwidth::gbps(400));
  const Node& sw = t.node(id(t, "pod0_edge0"));
  EXPECT_EQ(sw.params.latency, SimTime::ns(250));
  EXPECT_EQ(sw.params.buffer_bytes, 16u << 20);
  EXPECT_FALSE(sw.params.shared_buffer);
}

TEST(Loader, NameAndOversubscription) {
  const Topology t = parse("name: my_tree\nkind: fat_tree\nk: 4\noversubscription: 3\nlink: {bandwidth: 100Gbps, "
                           "latency: 1us}\n");
  EXPECT_EQ(t.name(), "my_tree");
  EXPECT_EQ(t.num_hosts(), 48u);
}

TEST(Loader, DefaultSwitchParams) {
  const Topology t = parse("kind: leaf_spine\nleaves: 2\nspines: 1\nhosts_per_leaf: 2\nlink: {bandwidth: 100Gbps, "
                           "latency: 1us}\n");
  const SwitchParams& p = t.node(id(t, "leaf0")).params;
  EXPECT_EQ(p.latency, SimTime::zero());
  EXPECT_EQ(p.buffer_bytes, 32u << 20);
  EXPECT_TRUE(p.shared_buffer);
}

TEST(Loader, LeafSpineBlockStyle) {
  const Topology t = parse(R"(
kind: leaf_spine
leaves: 3
spines: 2
hosts_per_leaf: 4
uplinks_per_spine: 2
link:
  bandwidth: 200Gbps
  latency: 500ns
)");
  EXPECT_EQ(t.num_hosts(), 12u);
  EXPECT_EQ(t.num_switches(), 5u);
  EXPECT_EQ(t.links().size(), 12u + 12u);
  EXPECT_EQ(t.link(0).latency, SimTime::ns(500));
}

TEST(Loader, Rail) {
  const Topology t = parse(R"(
kind: rail
servers: 4
gpus_per_server: 4
servers_per_leaf: 2
spines: 2
nvlink: {bandwidth: 3600Gbps, latency: 120ns}
nic: {bandwidth: 400Gbps, latency: 600ns}
link: {bandwidth: 400Gbps, latency: 700ns}
nvswitch: {latency: 50ns}
switch: {buffer: 64MiB}
)");
  // 16 GPUs; 4 NVSwitches + 4 rails x 2 leaves + 2 spines = 14; 16 + 16 + 8 x 2 = 48 links.
  EXPECT_EQ(t.num_hosts(), 16u);
  EXPECT_EQ(t.num_switches(), 14u);
  EXPECT_EQ(t.links().size(), 48u);
  const Node& nvs = t.node(id(t, "nvs1"));
  EXPECT_EQ(nvs.kind, NodeKind::NvSwitch);
  EXPECT_EQ(nvs.params.latency, SimTime::ns(50));
  EXPECT_EQ(nvs.params.buffer_bytes, 64u << 20);  // from switch:
  EXPECT_EQ(t.node(id(t, "spine0")).params.latency, SimTime::zero());
  const Link& fabric = t.link(t.ports(id(t, "spine0"))[0].link);
  EXPECT_EQ(fabric.latency, SimTime::ns(700));  // fabric_link defaults to link
  EXPECT_EQ(t.node(id(t, "s2g3")).server, 2u);
  EXPECT_EQ(t.link(t.ports(id(t, "s2g3"))[0].link).medium, LinkMedium::NvLink);
}

TEST(Loader, Dragonfly) {
  const Topology t = parse(R"(
kind: dragonfly
groups: 5
routers_per_group: 2
hosts_per_router: 2
global_links_per_router: 2
link: {bandwidth: 100Gbps, latency: 500ns}
global_link: {bandwidth: 50Gbps, latency: 2us}
)");
  // 20 hosts, 10 routers; 20 + 5 local + 5 x 4 / 2 = 10 global = 35 links.
  EXPECT_EQ(t.num_hosts(), 20u);
  EXPECT_EQ(t.num_switches(), 10u);
  EXPECT_EQ(t.links().size(), 35u);
  EXPECT_EQ(t.link(34).bandwidth, Bandwidth::gbps(50));
  EXPECT_EQ(t.link(34).latency, SimTime::us(2));
  EXPECT_EQ(t.link(20).bandwidth, Bandwidth::gbps(100));  // first local link
}

TEST(Loader, Torus) {
  const Topology t = parse(R"(
kind: torus
dims: [4, 2, 3]
hosts_per_switch: 2
link: {bandwidth: 100Gbps, latency: 500ns}
)");
  // 24 switches, 48 hosts; 24 (size 4) + 12 (size 2) + 24 (size 3) + 48 = 108 links.
  EXPECT_EQ(t.num_switches(), 24u);
  EXPECT_EQ(t.num_hosts(), 48u);
  EXPECT_EQ(t.links().size(), 108u);
  EXPECT_EQ(t.torus()->dims, (std::vector<std::uint32_t>{4, 2, 3}));
}

TEST(Loader, Explicit) {
  const Topology t = parse(R"(
kind: explicit
link: {bandwidth: 100Gbps, latency: 1us}
switch: {buffer: 8MiB}
nodes:
  - {name: g0, kind: host, server: 7}
  - {name: g1, kind: host, server: 7}
  - {name: h2, kind: host}
  - {name: nv, kind: nvswitch, latency: 20ns}
  - {name: s0, kind: switch, latency: 100ns, buffer: 16MiB, shared_buffer: false}
links:
  - {a: g0, b: nv, bandwidth: 2400Gbps, latency: 100ns, medium: nvlink}
  - {a: g1, b: nv, bandwidth: 2400Gbps, latency: 100ns, medium: nvlink}
  - {a: g0, b: s0}
  - {a: g1, b: s0, latency: 2us}
  - {a: h2, b: s0, medium: pcie}
)");
  EXPECT_EQ(t.kind(), "explicit");
  EXPECT_EQ(t.num_hosts(), 3u);
  EXPECT_EQ(t.num_switches(), 2u);
  EXPECT_EQ(t.node(id(t, "g1")).server, 7u);
  EXPECT_EQ(t.node(id(t, "h2")).server, 2u);  // default: its rank
  EXPECT_EQ(t.node(id(t, "h2")).index, 2u);
  EXPECT_EQ(t.node(id(t, "nv")).kind, NodeKind::NvSwitch);
  EXPECT_EQ(t.node(id(t, "nv")).params.latency, SimTime::ns(20));
  EXPECT_EQ(t.node(id(t, "nv")).params.buffer_bytes, 8u << 20);
  EXPECT_EQ(t.node(id(t, "s0")).params.buffer_bytes, 16u << 20);
  EXPECT_FALSE(t.node(id(t, "s0")).params.shared_buffer);
  EXPECT_EQ(t.link(0).medium, LinkMedium::NvLink);
  EXPECT_EQ(t.link(0).bandwidth, Bandwidth::gbps(2400));
  EXPECT_EQ(t.link(2).bandwidth, Bandwidth::gbps(100));  // from link:
  EXPECT_EQ(t.link(3).latency, SimTime::us(2));
  EXPECT_EQ(t.link(3).bandwidth, Bandwidth::gbps(100));
  EXPECT_EQ(t.link(4).medium, LinkMedium::Pcie);
  // Ports in link order: g0 has nv (0) then s0 (1); s0 has g0, g1, h2.
  EXPECT_EQ(t.ports(id(t, "g0"))[1].peer, id(t, "s0"));
  EXPECT_EQ(t.ports(id(t, "s0"))[2].peer, id(t, "h2"));
}

TEST(Loader, ExplicitHostToHostLink) {
  const Topology t = parse(R"(
kind: explicit
nodes: [{name: a, kind: host}, {name: b, kind: host}]
links: [{a: a, b: b, bandwidth: 10Gbps, latency: 0}]
)");
  EXPECT_EQ(t.links().size(), 1u);
  EXPECT_EQ(t.link(0).latency, SimTime::zero());
}

TEST(Loader, FromFile) {
  const test_support::ScratchDir dir;
  const std::string path =
      dir.write("collsim_topo_loader_test.yaml", "kind: torus\ndims: [2, 2]\nlink: {bandwidth: 1Tbps, latency: 10ns}\n").string();
  const Topology t = load_topology(path);
  EXPECT_EQ(t.name(), "collsim_topo_loader_test");
  EXPECT_EQ(t.num_hosts(), 4u);
  EXPECT_EQ(t.link(0).bandwidth, Bandwidth::gbps(1000));
}

TEST(Loader, MissingFile) {
  try {
    load_topology("/nonexistent/topo.yaml");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/nonexistent/topo.yaml");
    EXPECT_NE(std::string(e.what()).find("cannot open"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace collsim::topo
