// Which parts of a partitioned fabric keep their traffic on their rank (SealedIslands).

#include <gtest/gtest.h>

#include <algorithm>

#include "collsim/net/sealed_islands.hpp"

namespace collsim::net {
namespace {

// Two servers of two GPUs: GPUs 0, 1 on NVSwitch 5, GPUs 2, 3 on NVSwitch 6, every GPU on the
// leaf 4 as well.
struct TwoServers {
  topo::Topology t;
  topo::LinkId gpu0_nvswitch = 0;
  TwoServers() {
    for (int g = 0; g < 4; ++g) t.add_node("gpu" + std::to_string(g), topo::NodeKind::Host, {}, g / 2);
    const topo::NodeId leaf = t.add_node("leaf", topo::NodeKind::Switch);
    const topo::NodeId nvs0 = t.add_node("nvs0", topo::NodeKind::NvSwitch);
    const topo::NodeId nvs1 = t.add_node("nvs1", topo::NodeKind::NvSwitch);
    for (topo::NodeId g = 0; g < 4; ++g) {
      const topo::LinkId l = t.add_link(g, g < 2 ? nvs0 : nvs1, Bandwidth::gbps(2400), SimTime::ns(100), topo::LinkMedium::NvLink);
      if (g == 0) gpu0_nvswitch = l;
    }
    for (topo::NodeId g = 0; g < 4; ++g) t.add_link(g, leaf, Bandwidth::gbps(200), SimTime::ns(500));
  }
};

pdes::Partition owners(std::vector<std::uint32_t> owner) { return {2, std::move(owner)}; }

TEST(SealedIslands, AServerHeldWholeIsSealedAndTheSharedLeafIsNot) {
  const TwoServers s;
  const FlowDomains none = flow_domains(s.t, Fidelity{});
  // Server 0 and the leaf on rank 0, server 1 on rank 1.
  const SealedIslands sealed = sealed_islands(s.t, none, owners({0, 0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(sealed.node, (std::vector<bool>{false, false, false, false, false, true, true}));
  EXPECT_TRUE(sealed.link_sealed(s.t, none, s.gpu0_nvswitch, 0));
  EXPECT_EQ(sealed.hosts_behind(s.t, none, s.gpu0_nvswitch, 0), (std::vector<topo::NodeId>{0, 1}));
}

TEST(SealedIslands, AServerSplitOverTwoRanksIsOpen) {
  const TwoServers s;
  const FlowDomains none = flow_domains(s.t, Fidelity{});
  // GPU 1 away from its NVSwitch: what that NVSwitch carries may go to rank 1.
  const SealedIslands sealed = sealed_islands(s.t, none, owners({0, 1, 1, 1, 0, 0, 1}));
  EXPECT_FALSE(sealed.node[5]);
  EXPECT_TRUE(sealed.node[6]);
  EXPECT_FALSE(sealed.link_sealed(s.t, none, s.gpu0_nvswitch, 0));
}

TEST(SealedIslands, OnOneRankEveryIslandIsSealed) {
  const TwoServers s;
  const FlowDomains none = flow_domains(s.t, Fidelity{});
  const SealedIslands sealed = sealed_islands(s.t, none, {1, std::vector<std::uint32_t>(7, 0)});
  EXPECT_EQ(sealed.node, (std::vector<bool>{false, false, false, false, true, true, true}));
}

TEST(SealedIslands, AFlowDomainIsSealedWhenItsHostsAreOnItsHomesRank) {
  const TwoServers s;
  const FlowDomains domains = flow_domains(s.t, parse_fidelity("nvlink=flow"));
  ASSERT_EQ(domains.size(), 2u);
  const SealedIslands whole = sealed_islands(s.t, domains, owners({0, 0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(whole.domain, (std::vector<bool>{true, true}));
  EXPECT_TRUE(whole.link_sealed(s.t, domains, s.gpu0_nvswitch, 0));
  const std::vector<topo::NodeId> behind = whole.hosts_behind(s.t, domains, s.gpu0_nvswitch, 0);
  EXPECT_EQ(std::vector<topo::NodeId>(behind.begin(), behind.end()), (std::vector<topo::NodeId>{0, 1}));
  const SealedIslands split = sealed_islands(s.t, domains, owners({0, 1, 1, 1, 0, 0, 1}));
  EXPECT_FALSE(split.domain[domains.domain_of_link[s.gpu0_nvswitch]]);
}

}  // namespace
}  // namespace collsim::net
